/**
 * A catalog's sources saying that what they were built from changed outside any file (an upstream
 * MCP server's `list_changed`, KindContext.changed). The reloader of the catalog being served
 * listens; before it does (the catalog is still opening, or is being retired) a change is dropped:
 * the lists read at open are the catalog's, and a retired catalog is not reloaded.
 */
export interface UpstreamChange {
  /** One line for the log: which source, what it said. */
  readonly reason: string;
  /** `refuse`: a served description that changes refuses the reload (KindContext.changed). */
  readonly descriptions: 'report' | 'refuse';
}

export class UpstreamChanges {
  private listener: ((change: UpstreamChange) => void) | undefined;

  emit(change: UpstreamChange): void {
    this.listener?.(change);
  }

  /** One listener at a time: the reloader of the catalog served now. */
  listen(listener: ((change: UpstreamChange) => void) | undefined): void {
    this.listener = listener;
  }
}
