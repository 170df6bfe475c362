const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into newline-delimited lines (a CR before the newline dropped, blank lines
 * skipped); a line over `maxBytes` is discarded without being buffered, and `onOversize` told when
 * it ends. `onOverflow`, when given, is told at once, the moment a line passes `maxBytes`: a line
 * that never ends (no newline, ever growing) is otherwise never reported. Stdio reads its input
 * with it, the SQLite pool and its workers their channel, and an `mcp` source its upstream's stdout.
 */
export class LineFramer {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: () => void,
    private readonly onOverflow?: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      this.append(chunk.subarray(start, nl));
      this.completeLine();
      start = nl + 1;
    }
    // Kept past this call, so copied: the caller may read into the same buffer again (and a view
    // would keep the whole chunk alive).
    if (start < chunk.length) this.append(chunk.subarray(start), true);
  }

  /** At EOF a last line without its newline still counts. */
  end(): void {
    if (this.size > 0 || this.discarding) this.completeLine();
  }

  private append(part: Buffer, kept = false): void {
    if (this.discarding || part.length === 0) return;
    this.size += part.length;
    if (this.size > this.maxBytes) {
      this.discarding = true;
      this.parts = [];
      this.size = 0;
      this.onOverflow?.();
    } else this.parts.push(kept ? Buffer.from(part) : part);
  }

  private completeLine(): void {
    if (this.discarding) {
      this.discarding = false;
      this.onOversize();
      return;
    }
    const parts = this.parts;
    let line = parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.size);
    this.parts = [];
    this.size = 0;
    if (line === undefined || line.length === 0) return;
    if (line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, line.length - 1);
    const text = line.toString('utf8');
    if (text.trim() !== '') this.onLine(text);
  }
}
