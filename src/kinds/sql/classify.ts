/**
 * Tells a read statement from everything else, before it reaches the database: one layer of the
 * read-only defence (the others are the read-only transaction and the driver's one-statement rule).
 *
 * Comments, strings and quoted identifiers are skipped the way the dialect reads them, then the
 * words are checked: exactly one statement, starting with a read keyword, with no word anywhere that
 * changes data (`WITH x AS (DELETE …)`, `SELECT … INTO`, `EXPLAIN ANALYZE INSERT …`,
 * `SELECT … FOR UPDATE`), and no call of a function that acts outside the read-only transaction
 * (server files, large objects, dblink, advisory and user locks, signals to other sessions, settings;
 * quoted and schema-qualified names included). It errs towards refusing: a read that happens to use
 * such a word unquoted is refused with a reason the model can act on.
 *
 * Strings are read as the server reads them: on PostgreSQL a backslash is literal in '…' (the
 * sources set standard_conforming_strings = on) and escapes only in E'…'; on MySQL it escapes in
 * every string (the source clears NO_BACKSLASH_ESCAPES from sql_mode); DuckDB reads them as
 * PostgreSQL does.
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
/** DuckDB's own reads: FROM-first queries (`FROM t SELECT a`, `FROM 'x.parquet'`) and SUMMARIZE. */
const DUCKDB_READ_STARTS = new Set(['FROM', 'SUMMARIZE']);
/** DuckDB's statements that write files or run others, wherever they stand (`EXPLAIN EXPORT …`). */
const DUCKDB_WRITE_WORDS = new Set(['EXPORT', 'IMPORT', 'INSTALL', 'CHECKPOINT', 'FORCE']);
const ROW_SETS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'FROM']);
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
/**
 * Functions whose effect is not undone by a read-only transaction's rollback, or that reach past
 * the database: files, programs, other sessions, server state, session locks, settings.
 */
const SIDE_EFFECT_FUNCTIONS = new Set([
  // PostgreSQL: server files, signals, server state, settings, large objects (see the prefixes too)
  'PG_READ_FILE',
  'PG_READ_BINARY_FILE',
  'PG_STAT_FILE',
  'PG_TERMINATE_BACKEND',
  'PG_CANCEL_BACKEND',
  'PG_RELOAD_CONF',
  'PG_ROTATE_LOGFILE',
  'PG_PROMOTE',
  'PG_SWITCH_WAL',
  'PG_CREATE_RESTORE_POINT',
  'PG_LOGICAL_EMIT_MESSAGE',
  'PG_LOG_BACKEND_MEMORY_CONTEXTS',
  'PG_IMPORT_SYSTEM_COLLATIONS',
  'PG_NOTIFY',
  'SET_CONFIG',
  'LOREAD',
  'LOWRITE',
  // MySQL and MariaDB: server files, user locks, replication waits, CPU burn, UDF shells
  'LOAD_FILE',
  'GET_LOCK',
  'RELEASE_LOCK',
  'RELEASE_ALL_LOCKS',
  'BENCHMARK',
  'MASTER_POS_WAIT',
  'SOURCE_POS_WAIT',
  'MASTER_GTID_WAIT',
  'WAIT_FOR_EXECUTED_GTID_SET',
  'WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS',
  'SYS_EXEC',
  'SYS_EVAL',
  // SQLite: extensions and the fileio functions
  'LOAD_EXTENSION',
  'READFILE',
  'WRITEFILE',
  'EDIT',
]);
/** Families of such functions, by the start of their name. */
const SIDE_EFFECT_PREFIXES = [
  'DBLINK', // dblink, dblink_exec, dblink_connect…: statements on another connection, committed
  'LO_', // large objects: lo_import / lo_export read and write server files
  'PG_LS_', // server directory listings
  'PG_ADVISORY_', // advisory locks (session ones outlive the transaction)
  'PG_TRY_ADVISORY_',
  'PG_FILE_', // adminpack
  'PG_STAT_RESET',
  'PG_REPLICATION_ORIGIN_',
  'PG_WAL_REPLAY_',
  'PG_BACKUP_',
  'PG_START_BACKUP',
  'PG_STOP_BACKUP',
  'PG_CREATE_PHYSICAL_REPLICATION_SLOT',
  'PG_CREATE_LOGICAL_REPLICATION_SLOT',
  'PG_DROP_REPLICATION_SLOT',
  'PG_COPY_',
];

export function isSideEffectFunction(name: string): boolean {
  const upper = name.toUpperCase();
  return SIDE_EFFECT_FUNCTIONS.has(upper) || SIDE_EFFECT_PREFIXES.some((p) => upper.startsWith(p));
}

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
  /** The next character after the word that is not blank or in a comment ('' at the end). */
  next: string;
  /** A quoted identifier ("…" or `…`): a name, never a keyword. */
  readonly quoted?: boolean;
  /** Written with escapes (PostgreSQL U&"…"), so its real name is not `text`. */
  readonly escaped?: boolean;
}

interface Scan {
  readonly words: readonly Word[];
  readonly statements: number;
  readonly equals: boolean;
  readonly problem?: string;
}

/**
 * classifySql for one dialect, keeping the verdicts of the last `max` texts: a verdict depends on the
 * text alone, and a source checks the same few texts (its tools' statements) on every call.
 */
export function verdicts(dialect: string, max = 500): (sql: string) => SqlVerdict {
  const kept = new Map<string, SqlVerdict>();
  return (sql) => {
    let verdict = kept.get(sql);
    if (!verdict) {
      verdict = classifySql(sql, dialect);
      if (kept.size >= max) kept.delete(kept.keys().next().value as string);
      kept.set(sql, verdict);
    }
    return verdict;
  };
}

export function classifySql(sql: string, dialect: string): SqlVerdict {
  const scan = scanSql(sql, dialect);
  const plain = scan.words.filter((w) => !w.quoted);
  const keyword = plain[0]?.text ?? '';
  const refuse = (reason: string, write = false): SqlVerdict => ({ read: false, keyword, reason, write });
  if (scan.problem) return refuse(scan.problem);
  if (scan.statements > 1) {
    return refuse('only one statement is allowed; remove everything after the first ";"');
  }
  if (!keyword) return refuse('the statement is empty');
  if (!READ_STARTS.has(keyword) && !(dialect === 'duckdb' && DUCKDB_READ_STARTS.has(keyword)))
    return refuse(`${keyword} is not a read statement`, true);
  if (keyword === 'PRAGMA') {
    const pragma = plain[1]?.text ?? '';
    if (dialect !== 'sqlite' || !READ_PRAGMAS.has(pragma) || scan.equals) {
      return refuse(`PRAGMA ${pragma.toLowerCase()} is not one of the pragmas that only read`, true);
    }
  }
  for (const word of scan.words) {
    if (word.next === '(' && (word.escaped || isSideEffectFunction(word.text))) {
      const name = word.escaped ? 'a function whose name is written with escapes' : word.text.toLowerCase();
      return refuse(
        `the statement calls ${name}, which acts outside the read-only transaction (files, locks, other sessions or the server); only plain reads run here`,
      );
    }
    if (word.quoted) continue;
    // REPLACE(…) is a string function; REPLACE INTO is MySQL's upsert.
    if (
      WRITE_WORDS.has(word.text) ||
      (word.text === 'REPLACE' && word.next !== '(') ||
      (dialect === 'duckdb' && DUCKDB_WRITE_WORDS.has(word.text))
    ) {
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
  // DuckDB's parser is PostgreSQL's: the same strings, dollar quotes and nested comments.
  const postgres = dialect === 'postgres' || dialect === 'duckdb';
  const words: Word[] = [];
  /** The last word, until the next code character (its `next`) is seen. */
  let pending: Word | undefined;
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
    if (pending) {
      pending.next = c;
      pending = undefined;
    }
    if (c === ';') {
      if (code) statements++;
      code = false;
      i++;
      continue;
    }
    code = true;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      // Backslash escapes: every MySQL string, and Postgres E'…' strings. The E must stand alone:
      // in `name'\'` it ends a type name, and the string is a standard one.
      const prev = sql[i - 1] ?? '';
      const prefixed = /[eE]/.test(prev) && !WORD_PART.test(sql[i - 2] ?? ' ');
      const escapes = (mysql && c !== '`') || (postgres && c === "'" && prefixed);
      const end = endOfQuoted(sql, i, c === '[' ? ']' : c, escapes);
      if (end === -1) return unterminated(c === "'" ? 'string' : 'quoted identifier');
      if (c !== "'") {
        // A quoted name may still be a function: "pg_read_file"(…), `LOAD_FILE`(…).
        const close = c === '[' ? ']' : c;
        const name = sql.slice(i + 1, end - 1).replaceAll(close + close, close);
        const escaped = postgres && c === '"' && /u&$/i.test(sql.slice(Math.max(0, i - 2), i));
        pending = { text: name.toUpperCase(), next: '', quoted: true, escaped };
        words.push(pending);
      }
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
      pending = { text: sql.slice(i, j).toUpperCase(), next: '' };
      words.push(pending);
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
