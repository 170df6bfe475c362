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

  override writeHead(statusCode: number, reason?: string | Headers, headers?: Headers): this {
    if (typeof reason === 'string') return super.writeHead(statusCode, reason, this.withExchange(headers));
    return super.writeHead(statusCode, this.withExchange(reason));
  }

  private withExchange(headers: Headers | undefined): Headers | undefined {
    const exchange = this.exchangeHeaders;
    if (exchange === undefined) return headers;
    if (headers === undefined) return exchange;
    if (Array.isArray(headers)) {
      // Names and values in turn, as node takes a head given as an array.
      const pairs: OutgoingHttpHeader[] = [];
      for (const name in exchange) pairs.push(name, exchange[name] as OutgoingHttpHeader);
      return [...pairs, ...headers];
    }
    // Copied key by key: an object spread of the two took some 10,000 instructions more a request.
    const merged: OutgoingHttpHeaders = {};
    for (const name in exchange) merged[name] = exchange[name];
    for (const name in headers) merged[name] = headers[name];
    return merged;
  }
}
