/**
 * A burst of file-watcher events made one: the paths they named and whether any added or removed
 * a file, handed on once the events stop coming for `ms`. The reloader (catalog/reload.ts) and the
 * one watcher of `--workers` (cli/workers.ts) gather their events with it, so both see a burst
 * the same way.
 */

/** Events that add or remove files: they change what a folder resource lists. */
const STRUCTURAL: ReadonlySet<string> = new Set(['add', 'unlink', 'addDir', 'unlinkDir']);

/** How long the events must stop before a burst is handed on, unless told otherwise. */
export const FILE_EVENTS_DEBOUNCE_MS = 50;

export class FileEventBurst {
  private paths = new Set<string>();
  private structural = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly flush: (paths: Set<string>, structural: boolean) => void,
  ) {}

  /** One event of the watcher (chokidar's name for it, and its path). */
  add(event: string, path: string): void {
    this.paths.add(path);
    if (STRUCTURAL.has(event)) this.structural = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const { paths, structural } = this;
      this.paths = new Set();
      this.structural = false;
      this.flush(paths, structural);
    }, this.ms);
  }

  /** Drops the burst being gathered (the watcher is closing). */
  cancel(): void {
    clearTimeout(this.timer);
  }
}
