/**
 * Continuation cursors of paged SQL tools: the offset of the next page, tied to the arguments it
 * was made for, so a cursor passed with other arguments is refused instead of skipping rows of a
 * different result. Pages re-run the statement and skip the rows already returned (the source skips
 * them: a Postgres cursor MOVE, rows read past on MySQL and SQLite); an ORDER BY makes pages stable.
 */
import { createHash } from 'node:crypto';

export const CURSOR_ARGUMENT = 'cursor';

function fingerprint(args: Readonly<Record<string, unknown>>): string {
  const { [CURSOR_ARGUMENT]: _cursor, ...rest } = args;
  const sorted = Object.keys(rest)
    .sort()
    .map((k) => [k, rest[k]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('base64url').slice(0, 16);
}

export function encodeCursor(offset: number, args: Readonly<Record<string, unknown>>): string {
  return Buffer.from(JSON.stringify({ o: offset, a: fingerprint(args) })).toString('base64url');
}

/** The offset the cursor argument stands for (0 without one), or undefined when it is not valid. */
export function decodeCursor(args: Readonly<Record<string, unknown>>): number | undefined {
  const cursor = args[CURSOR_ARGUMENT];
  if (cursor === undefined || cursor === null || cursor === '') return 0;
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const { o, a } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      o?: unknown;
      a?: unknown;
    };
    if (typeof o !== 'number' || !Number.isSafeInteger(o) || o < 0 || a !== fingerprint(args))
      return undefined;
    return o;
  } catch {
    return undefined;
  }
}
