/**
 * The logger. Everything goes to stderr: on stdio, stdout belongs to JSON-RPC alone. Values that came
 * from the environment (`${env:…}`) are registered as secrets and replaced by `***` in every line.
 *
 * `--log-format json` writes one JSON object a line instead (`time`, `level`, `msg`, and the
 * `requestId`/`tool` of the request the line was logged in, from `logScope`), redacted the same way.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What a log line is about: set by the HTTP transport per request and by the tool wrapper per call. */
export interface LogFields {
  readonly requestId?: string;
  readonly tool?: string;
}

const scope = new AsyncLocalStorage<LogFields>();
/**
 * Only the json format shows fields, so they are recorded only once a json logger exists. An
 * AsyncLocalStorage that has run once makes node track the context of every promise from then on
 * (async hooks, Node 20), which cost a few per cent of every HTTP request for fields no line showed.
 */
let fieldsShown = false;

/** Runs `fn` with `fields` added to every line logged inside it (and in what it awaits). */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  if (!fieldsShown) return fn();
  const outer = scope.getStore();
  return scope.run(outer === undefined ? fields : { ...outer, ...fields }, fn);
}

/** The fields of the current request, if any. */
export function currentLogFields(): LogFields | undefined {
  return scope.getStore();
}

export type LogFormat = 'text' | 'json';

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

let stderrGuarded = false;

/**
 * A line to stderr. One that cannot be written (the disk the log file is on is full, the reader of
 * the pipe went away) is lost alone: an unhandled 'error' on process.stderr would end the server.
 */
function writeStderr(line: string): void {
  if (!stderrGuarded) {
    stderrGuarded = true;
    process.stderr.on('error', () => undefined);
  }
  try {
    process.stderr.write(line);
  } catch {
    // Lost: there is nowhere left to say so.
  }
}

export class StderrLogger implements Logger {
  private readonly secrets = new Set<string>();

  constructor(
    private threshold: LogThreshold = 'info',
    private readonly write: (line: string) => void = writeStderr,
    private readonly format: LogFormat = 'text',
  ) {
    if (format === 'json') fieldsShown = true;
  }

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
    if (this.format === 'json') {
      // Redacted before encoding, so a secret that JSON would escape is still found as written.
      const fields = Object.entries(scope.getStore() ?? {}).map(([k, v]) => [k, this.redact(String(v))]);
      const line = {
        time: new Date().toISOString(),
        level,
        msg: this.redact(message),
        ...Object.fromEntries(fields),
      };
      this.write(`${JSON.stringify(line)}\n`);
      return;
    }
    const prefix = level === 'info' ? '' : `${level}: `;
    this.write(`mcp-run: ${prefix}${this.redact(message)}\n`);
  }
}
