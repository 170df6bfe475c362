/**
 * What a method-table entry looks like (MethodSpec). Where messages go and what a legacy
 * connection remembers are in session.ts; what one protocol instance holds is in state.ts.
 */
import type { RequestScope } from './request-scope.js';

/** Returned by a handler whose request stays open (subscriptions/listen); it answers later. */
export const KEEP_OPEN: unique symbol = Symbol('keep-open');

export interface MethodSpec {
  /** 'legacy' methods are unknown (-32601) to modern requests, and the reverse. */
  readonly era: 'both' | 'legacy' | 'modern';
  /** The first 2025-era version that has this method; older sessions get -32601. Absent: all of them. */
  readonly legacySince?: string;
  /** Modern results of this method carry ttlMs + cacheScope. */
  readonly cacheable?: boolean;
  /** The params field that the 2026 `Mcp-Name` header repeats (routing-headers.ts). */
  readonly routingName?: 'name' | 'uri' | 'taskId';
  /** The tool's `x-mcp-header` arguments are mirrored in `Mcp-Param-*` headers (tools/call). */
  readonly routesArguments?: boolean;
  /** Returns the era-neutral result; the dispatcher adds the 2026 decoration. May throw ProtocolError. */
  handle(scope: RequestScope): object | typeof KEEP_OPEN | Promise<object | typeof KEEP_OPEN>;
}
