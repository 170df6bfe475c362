/**
 * Resource `sql-schema`: the live schema of a SQL source as resources a model can read.
 *
 * - `<uri>`: the overview, every table and view with its column count and row count (markdown);
 *   `<uri>?format=json` is the same as JSON.
 * - `<uri>/tables/<name>`: one table or view (columns, types, nullability, defaults, primary key,
 *   foreign keys, indexes, row count) as markdown; `?format=json` for JSON. The name is
 *   percent-encoded as one path segment.
 * - the template `<uri>/tables/{table}{?format}`, whose `table` completes from the live table list.
 *
 * Every read asks the database, so contents follow the schema. Which tables are *listed* follows it
 * too with `refresh: list` (the default: the list is read at each resources/list); with
 * `refresh: reload` it is read when the manifest loads and kept until the next reload.
 *
 * @example
 * ```yaml
 * resources:
 *   shop_schema: { kind: sql-schema, source: shop }   # sqlite://shop/schema, …/tables/{table}
 * ```
 */

import { problems } from '../../errors.js';
import type { ResourceKind, SqlTableSummary } from '../contract/kinds.js';
import {
  type CatalogResource,
  InvalidRequestParams,
  type ResourceContents,
  ResourceNotFound,
} from '../contract/types.js';
import { compact } from '../shared/compact.js';
import { hasScheme } from '../shared/uri-template.js';
import { completeFrom } from '../shared/variables.js';
import { sqlSchemaResourceInfo } from './schema-resource.info.js';
import { overviewMarkdown, summaryLine, tableMarkdown } from './schema-text.js';

export interface SqlSchemaConfig {
  readonly source: string;
  readonly uri?: string;
  readonly refresh?: 'list' | 'reload';
  readonly title?: string;
  readonly description?: string;
}

const MARKDOWN = 'text/markdown';
const JSON_TYPE = 'application/json';
const FORMATS = ['json', 'markdown'];

export const sqlSchemaResource: ResourceKind<SqlSchemaConfig> = {
  ...sqlSchemaResourceInfo,

  async compile(config, ctx) {
    const capability = ctx.source(config.source, 'sql', ['source']);
    const prefix = (config.uri ?? `${capability?.dialect ?? 'sql'}://${config.source}/schema`).replace(
      /\/+$/,
      '',
    );
    if (!hasScheme(prefix) || /[{}?#]/.test(prefix)) {
      ctx.error(
        ['uri'],
        problems.MANIFEST_INVALID_VALUE(
          `the URI ${JSON.stringify(prefix)} must have a scheme and no {, }, ? or #`,
          'for example db://shop/schema',
        ),
      );
      return undefined;
    }
    if (!capability) return undefined;
    const schema = capability.schema;
    const tablesPrefix = `${prefix}/tables/`;
    const tableUri = (name: string) => tablesPrefix + encodeURIComponent(name);
    const title = config.title ?? `Schema of ${config.source} (${capability.dialect})`;

    const overview = (format: 'json' | 'markdown', uri: string): CatalogResource => ({
      descriptor: compact({
        uri,
        name: format === 'json' ? `${ctx.name}.json` : ctx.name,
        title: format === 'json' ? `${title}, JSON` : title,
        description:
          config.description ??
          `The tables and views of ${config.source}, with column and row counts; each table has its own resource under ${tablesPrefix}.`,
        mimeType: format === 'json' ? JSON_TYPE : MARKDOWN,
      }),
      // Not subscribable: nothing tells the server when the database's schema changes.
      updates: false,
      async read(signal) {
        const tables = await schema.tables(signal);
        const text =
          format === 'json' ? JSON.stringify({ tables }, null, 2) : overviewMarkdown(title, tables, tableUri);
        return [{ uri, mimeType: format === 'json' ? JSON_TYPE : MARKDOWN, text }];
      },
    });

    const readTable = async (uri: string, name: string, format: string | undefined, signal: AbortSignal) => {
      if (format !== undefined && !FORMATS.includes(format)) {
        throw new InvalidRequestParams(`format must be json or markdown, not ${JSON.stringify(format)}`);
      }
      const detail = await schema.describe(name, signal);
      if (!detail)
        throw new ResourceNotFound(uri, `No table or view ${JSON.stringify(name)} in ${config.source}`);
      const contents: ResourceContents =
        format === 'json'
          ? { uri, mimeType: JSON_TYPE, text: JSON.stringify(detail, null, 2) }
          : { uri, mimeType: MARKDOWN, text: tableMarkdown(detail) };
      return [contents];
    };

    const tableResource = (t: SqlTableSummary): CatalogResource => ({
      descriptor: {
        uri: tableUri(t.name),
        name: t.name,
        title: `${t.type === 'view' ? 'View' : 'Table'} ${t.name}`,
        description: summaryLine(t),
        mimeType: MARKDOWN,
      },
      updates: false,
      read: (signal) => readTable(tableUri(t.name), t.name, undefined, signal),
    });

    let listed: CatalogResource[] = [];
    if (config.refresh === 'reload') {
      try {
        listed = (await schema.tables(AbortSignal.timeout(capability.defaults.timeoutMs * 4))).map(
          tableResource,
        );
      } catch (err) {
        ctx.error(
          ['source'],
          problems.SOURCE_OPEN_FAILED(config.source, `cannot read the schema: ${(err as Error).message}`),
        );
        return undefined;
      }
    }

    return {
      resources: [overview('markdown', prefix), overview('json', `${prefix}?format=json`), ...listed],
      templates: [
        {
          descriptor: {
            uriTemplate: `${tablesPrefix}{table}{?format}`,
            name: `${ctx.name}.table`,
            title: `A table of ${config.source}`,
            description: `One table or view of ${config.source}: columns, keys, indexes and row count. format=json for JSON.`,
            mimeType: MARKDOWN,
          },
          match: (uri) => matchTable(uri, tablesPrefix),
          read: (uri, vars, signal) => readTable(uri, vars.table!, vars.format, signal),
          async complete(variable, typed) {
            if (variable === 'format') return completeFrom(FORMATS, typed);
            if (variable !== 'table') return [];
            const names = (await schema.tables(AbortSignal.timeout(capability.defaults.timeoutMs))).map(
              (t) => t.name,
            );
            return completeFrom(names, typed);
          },
        },
      ],
      ...(config.refresh !== 'reload' && {
        list: async (signal: AbortSignal) => (await schema.tables(signal)).map(tableResource),
      }),
    };
  },
};

/** `<prefix><segment>[?format=<f>]` → its variables; a `/` in the segment must be encoded. */
function matchTable(uri: string, prefix: string): Record<string, string> | undefined {
  if (!uri.startsWith(prefix)) return undefined;
  const [segment = '', query] = uri.slice(prefix.length).split(/\?(.*)/s, 2);
  if (segment === '' || segment.includes('/')) return undefined;
  let table: string;
  try {
    table = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  if (query === undefined) return { table };
  const params = new URLSearchParams(query);
  const format = params.get('format');
  if (format === null || [...params.keys()].some((k) => k !== 'format')) return undefined;
  return { table, format };
}
