/**
 * Tells a read statement from everything else, before it reaches the database: one layer of the
 * read-only defence (the others are the read-only transaction and the driver's one-statement rule).
 *
 * Comments, strings and quoted identifiers are skipped the way the dialect reads them, then the
 * words are checked: exactly one statement, starting with a read keyword, with no word anywhere that
 * changes data (`WITH x AS (DELETE …)`, `SELECT … INTO`, `EXPLAIN ANALYZE INSERT …`,
 * `SELECT … FOR UPDATE`). It errs towards refusing: a read that happens to use such a word unquoted
 * is refused with a reason the model can act on.
 */

export type SqlVerdict =
  | {
      readonly read: true;
      readonly keyword: string;
      /** The statement returns a row set that can be fetched in pages (SELECT, WITH, VALUES, TABLE). */
      readonly rowSet: boolean;
    }
  | { readonly read: false; readonly keyword: string; readonly reason: string; readonly write: boolean };

const READ_STARTS = new Set([
  'SELECT',
  'WITH',
  'VALUES',
  'TABLE',
  'EXPLAIN',
  'SHOW',
  'DESCRIBE',
  'DESC',
  'PRAGMA',
]);
const ROW_SETS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);
/** Words that never appear in a plain read, wherever they stand. */
const WRITE_WORDS = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'UPSERT',
  'TRUNCATE',
  'DROP',
  'ALTER',
  'CREATE',
  'GRANT',
  'REVOKE',
  'INTO',
  'CALL',
  'COPY',
  'ATTACH',
  'DETACH',
  'VACUUM',
  'REINDEX',
  'RENAME',
  'HANDLER',
  'LOAD',
]);
/** SQLite pragmas that only report; any other pragma (or one with `=`) may change the database. */
const READ_PRAGMAS = new Set([
  'TABLE_INFO',
  'TABLE_XINFO',
  'TABLE_LIST',
  'INDEX_LIST',
  'INDEX_INFO',
  'INDEX_XINFO',
  'FOREIGN_KEY_LIST',
  'FOREIGN_KEY_CHECK',
  'DATABASE_LIST',
  'COLLATION_LIST',
  'FUNCTION_LIST',
  'MODULE_LIST',
  'PRAGMA_LIST',
  'COMPILE_OPTIONS',
  'INTEGRITY_CHECK',
  'QUICK_CHECK',
  'PAGE_COUNT',
  'PAGE_SIZE',
  'FREELIST_COUNT',
  'SCHEMA_VERSION',
  'USER_VERSION',
  'DATA_VERSION',
  'ENCODING',
]);

interface Word {
  readonly text: string;
  /** The next character after the word that is not blank ('' at the end). */
  readonly next: string;
}

interface Scan {
  readonly words: readonly Word[];
  readonly statements: number;
  readonly equals: boolean;
  readonly problem?: string;
}

export function classifySql(sql: string, dialect: string): SqlVerdict {
  const scan = scanSql(sql, dialect);
  const keyword = scan.words[0]?.text ?? '';
  const refuse = (reason: string, write = false): SqlVerdict => ({ read: false, keyword, reason, write });
  if (scan.problem) return refuse(scan.problem);
  if (scan.statements > 1) {
    return refuse('only one statement is allowed; remove everything after the first ";"');
  }
  if (!keyword) return refuse('the statement is empty');
  if (!READ_STARTS.has(keyword)) return refuse(`${keyword} is not a read statement`, true);
  if (keyword === 'PRAGMA') {
    const pragma = scan.words[1]?.text ?? '';
    if (dialect !== 'sqlite' || !READ_PRAGMAS.has(pragma) || scan.equals) {
      return refuse(`PRAGMA ${pragma.toLowerCase()} is not one of the pragmas that only read`, true);
    }
  }
  for (const word of scan.words) {
    // REPLACE(…) is a string function; REPLACE INTO is MySQL's upsert.
    if (WRITE_WORDS.has(word.text) || (word.text === 'REPLACE' && word.next !== '(')) {
      return refuse(
        `the statement contains ${word.text}, which writes or locks; only plain reads run here`,
        true,
      );
    }
  }
  return { read: true, keyword, rowSet: ROW_SETS.has(keyword) };
}

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_$]/;
const BLANK = /\s/;

/** The words outside comments, strings and quoted identifiers, and the statement count. */
function scanSql(sql: string, dialect: string): Scan {
  const mysql = dialect === 'mysql';
  const postgres = dialect === 'postgres';
  const words: Word[] = [];
  let statements = 0;
  let code = false; // has the current statement any code yet?
  let equals = false;
  const n = sql.length;
  let i = 0;
  const unterminated = (what: string): Scan => ({
    words,
    statements,
    equals,
    problem: `the statement has an unterminated ${what}`,
  });

  while (i < n) {
    const c = sql[i]!;
    const next = sql[i + 1] ?? '';
    if (BLANK.test(c)) {
      i++;
      continue;
    }
    // Line comments. MySQL needs a blank after "--" (`1--1` is arithmetic there).
    if ((c === '-' && next === '-' && (!mysql || /\s|^$/.test(sql[i + 2] ?? ''))) || (mysql && c === '#')) {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
      continue;
    }
    if (c === '/' && next === '*') {
      if (mysql && (sql[i + 2] === '!' || sql.startsWith('M!', i + 2))) {
        return { words, statements, equals, problem: 'MySQL executable comments (/*! … */) are not allowed' };
      }
      const end = postgres ? endOfNestedComment(sql, i) : sql.indexOf('*/', i + 2);
      if (end === -1) return unterminated('comment');
      i = postgres ? end : end + 2;
      continue;
    }
    if (c === ';') {
      if (code) statements++;
      code = false;
      i++;
      continue;
    }
    code = true;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      // Backslash escapes: every MySQL string, and Postgres E'…' strings.
      const prev = sql[i - 1] ?? '';
      const escapes = (mysql && c !== '`') || (postgres && c === "'" && /[eE]/.test(prev));
      const end = endOfQuoted(sql, i, c === '[' ? ']' : c, escapes);
      if (end === -1) return unterminated(c === "'" ? 'string' : 'quoted identifier');
      i = end;
      continue;
    }
    if (postgres && c === '$' && !WORD_PART.test(sql[i - 1] ?? ' ')) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 66));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        if (end === -1) return unterminated('dollar-quoted string');
        i = end + tag[0].length;
        continue;
      }
    }
    if (WORD_START.test(c)) {
      let j = i + 1;
      while (j < n && WORD_PART.test(sql[j]!)) j++;
      let k = j;
      while (k < n && BLANK.test(sql[k]!)) k++;
      words.push({ text: sql.slice(i, j).toUpperCase(), next: sql[k] ?? '' });
      i = j;
      continue;
    }
    if (c === '=') equals = true;
    i++;
  }
  if (code) statements++;
  return { words, statements, equals };
}

/** Index just past the closing quote (a doubled quote is an escape), or -1. */
function endOfQuoted(sql: string, at: number, close: string, backslash: boolean): number {
  for (let j = at + 1; j < sql.length; j++) {
    const c = sql[j];
    if (backslash && c === '\\') j++;
    else if (c === close) {
      if (close !== ']' && sql[j + 1] === close) j++;
      else return j + 1;
    }
  }
  return -1;
}

/** Postgres block comments nest: index just past the matching close, or -1. */
function endOfNestedComment(sql: string, at: number): number {
  let depth = 0;
  for (let j = at; j < sql.length - 1; j++) {
    if (sql[j] === '/' && sql[j + 1] === '*') {
      depth++;
      j++;
    } else if (sql[j] === '*' && sql[j + 1] === '/') {
      depth--;
      j++;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}
