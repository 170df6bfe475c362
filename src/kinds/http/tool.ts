/**
 * Tool `http`: one request to a source with the `http` capability. The source fixes scheme, host
 * and port; the tool adds a path whose `{name}` placeholders are percent-encoded as one segment each,
 * plus a query, headers and a body written as data trees: `"{{name}}"` alone is the argument's typed
 * value, other strings are Handlebars text, an absent optional argument removes its entry.
 *
 * Arguments the path, query, headers and body do not use are not lost: when `query` is not declared,
 * GET, HEAD, DELETE and OPTIONS send them as query parameters; when `body` is not declared, POST,
 * PUT and PATCH send them as a JSON object body.
 *
 * @example
 * ```yaml
 * tools:
 *   get_issue:
 *     kind: http
 *     source: github
 *     description: One issue of a repository.
 *     path: /repos/{owner}/{repo}/issues/{number}
 *     input:
 *       owner: { type: string }
 *       repo: { type: string }
 *       number: { type: integer }
 *     output: { pick: "{title, state, user: user.login, body}" }
 * ```
 */

import { problems } from '../../errors.js';
import { parsePathTemplate } from '../../util/http-path.js';
import { isObject } from '../../util/is-object.js';
import { suggest } from '../../util/suggest.js';
import type { ToolCommon, ToolKind } from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import type { ToolResult } from '../contract/types.js';
import { compileOutput } from '../shared/output-shape.js';
import { trackErrors } from '../shared/tracked-context.js';
import { ABSENT, compileString, compileTree, evaluateTree, treeVariables } from '../shared/value-tree.js';
import { CONTENT_TYPES, encodeBody, impliedAnnotations, pickArgs, queryPairs, scalar } from './encode.js';
import { checkHeaders } from './headers.js';
import { responseResult } from './result.js';
import { httpToolInfo } from './tool.info.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface HttpToolConfig extends ToolCommon {
  readonly source: string;
  readonly method?: Method;
  readonly path: string;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string | number | boolean>>;
  readonly body?: unknown;
  readonly bodyType?: 'json' | 'form' | 'text';
  readonly output?: { readonly pick?: string; readonly template?: string };
  readonly timeoutMs?: number;
  readonly retries?: number;
}

const QUERY_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export const httpTool: ToolKind<HttpToolConfig> = {
  ...httpToolInfo,

  compile(config, entryCtx) {
    const { ctx, failed } = trackErrors(entryCtx);
    const http = ctx.source(config.source, 'http', ['source']);
    const method: Method = config.method ?? 'GET';
    const declared = Object.keys(config.input ?? {});

    let path: ReturnType<typeof parsePathTemplate> | undefined;
    try {
      path = parsePathTemplate(config.path);
      for (const param of new Set(path.params)) {
        if (!declared.includes(param)) {
          ctx.error(['path'], problems.HTTP_PATH_PARAM_UNDECLARED(param, declared, suggest(param, declared)));
        }
      }
    } catch (err) {
      ctx.error(['path'], problems.MANIFEST_INVALID_VALUE((err as Error).message));
    }

    const query = config.query && compileTree(config.query, declared, ['query'], ctx);
    const headerNodes = Object.entries(config.headers ?? {}).map(([name, value]) => {
      const node = compileString(String(value), declared, ['headers', name], ctx);
      const literal = node?.type === 'literal' ? String(node.value) : '';
      for (const [, reason] of checkHeaders({ [name]: literal })) {
        ctx.error(['headers', name], problems.MANIFEST_INVALID_VALUE(reason));
      }
      return [name, node] as const;
    });
    const bodyType = config.bodyType ?? 'json';
    const body = config.body === undefined ? undefined : compileTree(config.body, declared, ['body'], ctx);
    if (config.body !== undefined && (method === 'GET' || method === 'HEAD')) {
      ctx.error(['body'], problems.MANIFEST_INVALID_VALUE(`a ${method} request has no body; use query:`));
    }
    if (bodyType === 'form' && config.body !== undefined && !isObject(config.body)) {
      ctx.error(['body'], problems.MANIFEST_INVALID_VALUE('a form body is an object of fields'));
    }
    if (bodyType === 'text' && config.body !== undefined && typeof config.body !== 'string') {
      ctx.error(['body'], problems.MANIFEST_INVALID_VALUE('a text body is one template string'));
    }

    const { pick, template } = compileOutput(config.output, ctx);

    if (!http || !path || failed()) return undefined;

    const used = new Set([
      ...path.params,
      ...treeVariables(query),
      ...treeVariables(body),
      ...headerNodes.flatMap(([, node]) => treeVariables(node)),
    ]);
    const unused = declared.filter((name) => !used.has(name));
    const autoQuery = !config.query && QUERY_METHODS.has(method) ? unused : [];
    const autoBody =
      config.body === undefined && BODY_METHODS.has(method) && unused.length > 0 ? unused : undefined;
    const pathTemplate = path;
    // Errors name the path the upstream saw, the base URL's prefix included (`/api/v2/items/42`,
    // not `/items/42`): the upstream's logs and docs know only that one. baseUrl holds no
    // credentials, query or fragment (the source refuses them), so its path is safe to show.
    const basePath = new URL(http.baseUrl).pathname.replace(/\/+$/, '');

    return {
      annotations: impliedAnnotations(method, http.loopback),
      defaultTaskSupport: 'optional',
      async run(args, call): Promise<ToolResult> {
        let target: string;
        try {
          target = pathTemplate.render(args);
        } catch (err) {
          return errorResult(`${method} ${basePath}${config.path}: ${(err as Error).message}.`);
        }
        const label = `${method} ${basePath}${target}`;
        const headers: Record<string, string> = {};
        for (const [name, node] of headerNodes) {
          const value = evaluateTree(node!, args);
          if (value === ABSENT) continue;
          const text = scalar(value);
          if (/[\r\n\0]/.test(text)) {
            return errorResult(
              `${label} refused: the value for the ${name} header contains a line break or NUL.`,
            );
          }
          headers[name.toLowerCase()] = text;
        }
        const pairs = query ? queryPairs(evaluateTree(query, args)) : queryPairs(pickArgs(autoQuery, args));
        let payload: string | undefined;
        if (body || autoBody) {
          const data = body ? evaluateTree(body, args) : pickArgs(autoBody!, args);
          payload = data === ABSENT ? undefined : encodeBody(bodyType, data);
          if (payload !== undefined) headers['content-type'] ??= CONTENT_TYPES[body ? bodyType : 'json'];
        }
        try {
          const response = await http.request({
            method,
            path: target,
            query: pairs,
            headers,
            ...(payload !== undefined && { body: payload }),
            ...(config.timeoutMs !== undefined && { timeoutMs: config.timeoutMs }),
            ...(config.retries !== undefined && { retries: config.retries }),
            signal: call.signal,
            ...(call.identity !== undefined && { identity: call.identity }),
          });
          return responseResult(response, {
            label,
            uri: http.baseUrl + target,
            ...(pick && { pick }),
            ...(template && { template }),
            redact: http.redact,
          });
        } catch (err) {
          return errorResult(`${label} failed: ${http.redact((err as Error).message)}.`);
        }
      },
    };
  },
};
