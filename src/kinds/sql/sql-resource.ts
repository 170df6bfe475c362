/**
 * Resource `sql`: the rows of a query, as JSON. With `{var}`s in `uri` it is a resource template
 * whose variables are bound as the query's `:name` parameters (never pasted into the SQL); a
 * template read that finds no row is "not found", not an empty document.
 *
 * @example
 * ```yaml
 * resources:
 *   order:
 *     kind: sql
 *     source: shop
 *     uri: shop://orders/{id}
 *     sql: SELECT * FROM orders WHERE id = :id
 * ```
 */

import { problems } from '../../errors.js';
import type { ResourceKind, SqlCapability, SqlStatement } from '../contract/kinds.js';
import { type ResourceContents, ResourceNotFound } from '../contract/types.js';
import { compact } from '../shared/compact.js';
import {
  hasScheme,
  hasTemplateVariables,
  parseUriTemplate,
  type UriTemplate,
} from '../shared/uri-template.js';
import {
  completeFrom,
  completionList,
  optionalHints,
  ownEntry,
  type VariableConfig,
} from '../shared/variables.js';
import { parseDeclaredSql, parseSqlParams } from './params.js';
import { sqlResourceInfo } from './sql-resource.info.js';

export interface SqlResourceConfig {
  readonly source: string;
  readonly uri: string;
  readonly sql: string;
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  readonly maxRows?: number;
  readonly variables?: Readonly<Record<string, VariableConfig>>;
}

const MIME_TYPE = 'application/json';

export const sqlResource: ResourceKind<SqlResourceConfig> = {
  ...sqlResourceInfo,

  async compile(config, ctx) {
    if (!hasScheme(config.uri)) {
      ctx.error(
        ['uri'],
        problems.MANIFEST_INVALID_VALUE(`the URI ${JSON.stringify(config.uri)} has no scheme`),
      );
      return undefined;
    }
    let template: UriTemplate | undefined;
    if (hasTemplateVariables(config.uri)) {
      try {
        template = parseUriTemplate(config.uri);
      } catch (err) {
        ctx.error(['uri'], problems.URI_TEMPLATE_INVALID((err as Error).message));
      }
    }
    const capability = ctx.source(config.source, 'sql', ['source']);
    const parsed = parseDeclaredSql(config.sql, template?.variables ?? [], ctx);
    let ok = parsed !== undefined;
    const statement = parsed ?? parseSqlParams(config.sql);
    const invalid = ok ? capability?.check?.(statement) : undefined;
    if (invalid) {
      ok = false;
      ctx.error(['sql'], problems.SQL_INVALID(invalid));
    }
    if (!capability || !ok || (hasTemplateVariables(config.uri) && !template)) return undefined;

    const query = rowsReader(capability, statement, config.maxRows ?? capability.defaults.maxRows);
    const common = { name: config.name ?? ctx.name, title: config.title, description: config.description };
    if (!template) {
      const descriptor = compact({ uri: config.uri, ...common, mimeType: MIME_TYPE });
      // Not subscribable: nothing tells the server when the query's rows change.
      const resource = {
        descriptor,
        read: (signal: AbortSignal) => query(config.uri, {}, signal),
        updates: false,
      };
      return { resources: [resource], templates: [] };
    }
    const variables = config.variables ?? {};
    const matcher = template;
    return {
      resources: [],
      templates: [
        {
          descriptor: compact({ uriTemplate: config.uri, ...common, mimeType: MIME_TYPE }),
          ...optionalHints(variables),
          match: (uri) => matcher.match(uri),
          async read(uri, vars, signal) {
            const contents = await query(uri, vars, signal);
            if (contents.length === 0) throw new ResourceNotFound(uri);
            return contents;
          },
          complete: async (variable, prefix) =>
            completeFrom(completionList(ownEntry(variables, variable)), prefix),
        },
      ],
    };
  },
};

/** A reader for one statement; it yields no contents when a template's query finds no row. */
function rowsReader(capability: SqlCapability, statement: SqlStatement, maxRows: number) {
  const { timeoutMs } = capability.defaults;
  return async (
    uri: string,
    vars: Readonly<Record<string, string>>,
    signal: AbortSignal,
  ): Promise<readonly ResourceContents[]> => {
    const values = statement.params.map((name) => vars[name] ?? null);
    // A resource only reads, even on a writable source.
    const result = await capability.query(statement, values, { maxRows, timeoutMs, signal, readOnly: true });
    if (result.rows.length === 0 && Object.keys(vars).length > 0) return [];
    const body = { rows: result.rows, rowCount: result.rows.length, truncated: result.truncated };
    return [{ uri, mimeType: MIME_TYPE, text: JSON.stringify(body, null, 2) }];
  };
}
