/**
 * The server's responses. Each carries the headers of its exchange (`X-Request-Id`, and
 * `X-Mcp-Run-Replica` on a replica), whatever writes its head: the MCP endpoint's answers, the
 * probes and metrics of ops/routes.ts, the playground's page.
 *
 * They are added in `writeHead` rather than set with `setHeader` when the request comes: one header
 * set that way sends the head of the answer down node's slow path, where each header `writeHead` is
 * given goes through `setHeader` again (its name checked and lower-cased, its value checked). That
 * was about 9,000 instructions of the 200,000 a `tools/call` costs the server. A head written with
 * one object and nothing set before is stored as it is.
 */
import { type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from 'node:http';

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[];

export class ExchangeResponse extends ServerResponse {
  private exchangeHeaders: OutgoingHttpHeaders | undefined;

  /** The headers every answer to this request carries. */
  carry(headers: OutgoingHttpHeaders): void {
    this.exchangeHeaders = headers;
  }

  /**
   * node's `writeHead(status[, message][, headers])`, with the exchange's headers added to the ones
   * given. A header of the same name given here, or set on the response before, wins over the
   * exchange's, as it would over one set with `setHeader` ahead.
   */
  override writeHead(statusCode: number, reason?: string | Headers, headers?: Headers): this {
    if (typeof reason === 'string') return super.writeHead(statusCode, reason, this.withExchange(headers));
    return super.writeHead(statusCode, this.withExchange(headers ?? reason));
  }

  private withExchange(given: Headers | undefined): Headers | undefined {
    const exchange = this.exchangeHeaders;
    if (exchange === undefined) return given;
    if (given !== undefined && !Array.isArray(given)) {
      // Copied key by key: an object spread of the two took some 10,000 instructions more a request.
      const merged: OutgoingHttpHeaders = {};
      for (const name in exchange) if (this.lacks(name, given)) merged[name] = exchange[name];
      for (const name in given) merged[name] = given[name];
      return merged;
    }
    const added: [string, OutgoingHttpHeader][] = [];
    for (const name in exchange)
      if (this.lacks(name, given)) added.push([name, exchange[name] as OutgoingHttpHeader]);
    if (given === undefined) return Object.fromEntries(added);
    // node takes a head given as an array two ways: [name, value] pairs, or names and values in turn.
    if (Array.isArray(given[0])) return [...added, ...given] as OutgoingHttpHeader[];
    return [...added.flat(), ...given];
  }

  /** Neither set on the response before nor in `given`. */
  private lacks(name: string, given: Headers | undefined): boolean {
    return !this.hasHeader(name) && !names(given, name);
  }
}

/** Whether `headers` (an object or either array form) names `name`, in any case. */
function names(headers: Headers | undefined, name: string): boolean {
  if (headers === undefined) return false;
  if (!Array.isArray(headers)) {
    for (const other in headers) if (sameName(other, name)) return true;
    return false;
  }
  if (Array.isArray(headers[0]))
    return headers.some((pair) => Array.isArray(pair) && sameName(pair[0], name));
  for (let i = 0; i < headers.length; i += 2) if (sameName(headers[i], name)) return true;
  return false;
}

const sameName = (other: unknown, name: string): boolean =>
  typeof other === 'string' && other.length === name.length && other.toLowerCase() === name.toLowerCase();
