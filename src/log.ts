/**
 * The logger. Everything goes to stderr: on stdio, stdout belongs to JSON-RPC alone. Values that came
 * from the environment (`${env:…}`) are registered as secrets and replaced by `***` in every line.
 */

/** Where a part of mcp-run writes its lines; the kinds get one through their context. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogThreshold = keyof typeof LEVELS;

/** Shorter values are not redacted: replacing every "1" or "yes" in a log line would garble it. */
const MIN_SECRET_LENGTH = 4;

export class StderrLogger implements Logger {
  private readonly secrets = new Set<string>();

  constructor(
    private threshold: LogThreshold = 'info',
    private readonly write: (line: string) => void = (line) => process.stderr.write(line),
  ) {}

  setThreshold(threshold: LogThreshold): void {
    this.threshold = threshold;
  }

  addSecrets(values: Iterable<string>): void {
    for (const v of values) if (v.length >= MIN_SECRET_LENGTH) this.secrets.add(v);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join('***');
    return out;
  }

  debug(message: string): void {
    this.emit('debug', message);
  }
  info(message: string): void {
    this.emit('info', message);
  }
  warn(message: string): void {
    this.emit('warn', message);
  }
  error(message: string): void {
    this.emit('error', message);
  }

  private emit(level: Exclude<LogThreshold, 'silent'>, message: string): void {
    if (LEVELS[level] < LEVELS[this.threshold]) return;
    const prefix = level === 'info' ? '' : `${level}: `;
    this.write(`mcp-run: ${prefix}${this.redact(message)}\n`);
  }
}
