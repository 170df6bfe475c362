/**
 * What the role behind a read-only network source could do past the read-only transaction, found
 * when the source opens, and the least-privilege role to use instead.
 *
 * The read-only transaction stops writes to tables, but not what some functions do outside it:
 * a superuser reads and writes server files (`pg_read_file`, `lo_export`, `COPY … PROGRAM`), a
 * member of `pg_signal_backend` ends other sessions, a MySQL account with FILE reads files
 * (`LOAD_FILE`). The statement classifier refuses the known functions, but a list of names is never
 * complete (extensions add more), so a tool that runs model-written SQL (`sql-query`) is only
 * served on such a role when the source says `allowPrivilegedRole: true`.
 *
 * A PostgreSQL source with `role:` runs each call as that role, but SQL the model writes can step
 * back to the login: a function that runs SQL from a string (`query_to_xml`, `ts_stat`, …) calls
 * `set_config('role', 'none', true)` there, out of the statement check's sight. So `sql-query` is
 * not served on such a source unless it says `allowSqlQueryWithRole: true`, and then the check
 * judges the login's powers as well as the role's.
 */
import type { SqlCapability } from '../contract/kinds.js';

/** Why the source's role can escape read-only, per capability (absent: it cannot, as far as known). */
const privileged = new WeakMap<SqlCapability, PrivilegedRole>();

export interface PrivilegedRole {
  /** The role (PostgreSQL: the effective role) or account the source runs as. */
  readonly role: string;
  /** PostgreSQL with `role:`: the login, whose powers count too (postgresSwitchReasons). */
  readonly login?: string;
  /** Each power that escapes read-only, in words. */
  readonly reasons: readonly string[];
  /** The manifest opted in with `allowPrivilegedRole: true`. */
  readonly allowed: boolean;
  readonly dialect: 'postgres' | 'mysql';
}

export function markPrivileged(sql: SqlCapability, role: PrivilegedRole): void {
  if (role.reasons.length > 0) privileged.set(sql, role);
}

export function privilegeOf(sql: SqlCapability): PrivilegedRole | undefined {
  return privileged.get(sql);
}

/** A PostgreSQL source whose calls run as `role:`, over a login that is another role. */
export interface RoleSwitch {
  /** The role each call sets (`role:`). */
  readonly role: string;
  /** The login (session_user), which SQL run from a string can return to. */
  readonly login: string;
  /** The manifest opted in with `allowSqlQueryWithRole: true`. */
  readonly allowed: boolean;
}

/** Why `role:` does not bound SQL the model writes, per capability (absent: no role: to leave). */
const switched = new WeakMap<SqlCapability, RoleSwitch>();

export function markRoleSwitch(sql: SqlCapability, role: RoleSwitch): void {
  switched.set(sql, role);
}

export function roleSwitchOf(sql: SqlCapability): RoleSwitch | undefined {
  return switched.get(sql);
}

/** Default roles whose members act outside the database or on other sessions. */
export const POSTGRES_DANGEROUS_ROLES: Readonly<Record<string, string>> = {
  pg_read_server_files: 'reads any server file (pg_read_file, COPY … FROM a file)',
  pg_write_server_files: 'writes server files (COPY … TO a file, lo_export)',
  pg_execute_server_program: 'runs programs on the server (COPY … PROGRAM)',
  pg_signal_backend: 'cancels and terminates other sessions (pg_terminate_backend)',
};

/** Functions revoked from PUBLIC by default; an explicit EXECUTE grant on one is a way out. */
export const POSTGRES_GUARDED_FUNCTIONS = [
  'pg_read_file(text)',
  'pg_read_file(text,bigint,bigint)',
  'pg_read_file(text,bigint,bigint,boolean)',
  'pg_read_binary_file(text)',
  'pg_ls_dir(text)',
  'pg_stat_file(text)',
  'lo_import(text)',
  'lo_export(oid,text)',
  'pg_reload_conf()',
  'pg_rotate_logfile()',
  'pg_switch_wal()',
  'pg_create_restore_point(text)',
  'pg_promote(boolean,integer)',
  'dblink_connect_u(text)',
  'dblink_connect_u(text,text)',
];

/**
 * One row: a role's attributes, dangerous memberships and function grants; of the effective role
 * (`current_user`) or of the login (`session_user`), which ad-hoc SQL can return to under `role:`.
 */
export const postgresRoleQuery = (
  of: 'current_user' | 'session_user',
) => `SELECT r.rolname AS role, r.rolsuper AS superuser,
  r.rolcreaterole AS createrole, r.rolreplication AS replication,
  ARRAY(SELECT g.rolname::text FROM pg_roles g
        WHERE g.rolname = ANY($1::text[]) AND pg_has_role(r.oid, g.oid, 'MEMBER') ORDER BY 1) AS roles,
  ARRAY(SELECT f FROM unnest($2::text[]) f
        WHERE to_regprocedure(f) IS NOT NULL
          AND has_function_privilege(r.oid, to_regprocedure(f), 'EXECUTE') ORDER BY 1) AS functions
FROM pg_roles r WHERE r.rolname = ${of}`;

export interface PostgresRoleRow {
  readonly role: string;
  readonly superuser: boolean;
  readonly createrole: boolean;
  readonly replication: boolean;
  readonly roles: readonly string[];
  readonly functions: readonly string[];
}

export function postgresReasons(row: PostgresRoleRow): string[] {
  // A superuser passes every check below; one reason says it all.
  if (row.superuser) return ['superuser (bypasses every permission check: files, programs, other sessions)'];
  const reasons: string[] = [];
  if (row.createrole) {
    reasons.push(
      'CREATEROLE (can grant itself pg_read_server_files, pg_execute_server_program and the like)',
    );
  }
  if (row.replication) reasons.push('REPLICATION (creates replication slots, which hold WAL on the server)');
  for (const role of row.roles) reasons.push(`member of ${role}: ${POSTGRES_DANGEROUS_ROLES[role]}`);
  for (const fn of row.functions) reasons.push(`EXECUTE on ${fn}`);
  return reasons;
}

/**
 * What SQL the model writes can reach under `role:`: the role's powers, and the login's, which a
 * string that a function runs can return to (`set_config('role', 'none', true)`).
 */
export function postgresSwitchReasons(role: PostgresRoleRow, login: PostgresRoleRow): string[] {
  const own = postgresReasons(role);
  const more = postgresReasons(login).filter((reason) => !own.includes(reason));
  return [...own, ...more.map((reason) => `the login "${login.role}": ${reason}`)];
}

/** Global privileges (ON *.*) that reach past the database's tables or into other sessions. */
const MYSQL_DANGEROUS = new Map<string, string>([
  ['ALL PRIVILEGES', 'every privilege'],
  ['FILE', 'reads and writes server files (LOAD_FILE, INTO OUTFILE)'],
  ['SUPER', 'kills other sessions, changes global settings, writes despite read_only'],
  ['PROCESS', "sees every session's statements"],
  ['SHUTDOWN', 'stops the server'],
  ['RELOAD', 'flushes logs, caches and privileges'],
  ['CREATE USER', 'creates and changes accounts'],
  ['CONNECTION ADMIN', 'kills other sessions'],
  ['CONNECTION_ADMIN', 'kills other sessions'],
  ['READ_ONLY ADMIN', 'writes despite read_only'],
  ['BINLOG ADMIN', 'purges binary logs'],
  ['BINLOG_ADMIN', 'purges binary logs'],
  ['SYSTEM_VARIABLES_ADMIN', 'changes global settings'],
  ['SYSTEM_USER', 'acts on other accounts'],
  ['SET USER', 'runs code as other accounts'],
  ['SET_USER_ID', 'runs code as other accounts'],
  ['FEDERATED ADMIN', 'creates federated servers'],
  ['REPLICATION MASTER ADMIN', 'administers replication'],
  ['REPLICATION SLAVE ADMIN', 'administers replication'],
  ['REPLICATION_SLAVE_ADMIN', 'administers replication'],
]);

/** The dangerous global privileges in the lines of SHOW GRANTS FOR CURRENT_USER(). */
export function mysqlReasons(grants: readonly string[]): string[] {
  const reasons = new Set<string>();
  for (const line of grants) {
    const grant = /^GRANT\s+(.+?)\s+ON\s+(\S+)\s+TO\s/is.exec(line);
    if (!grant) continue;
    const global = grant[2] === '*.*';
    if (
      /\bWITH\b[^']*\bGRANT OPTION\b/i.test(line.slice(grant[0].length)) ||
      /\bGRANT OPTION\b/i.test(grant[1]!)
    ) {
      reasons.add('GRANT OPTION (passes its privileges on)');
    }
    if (!global) continue;
    for (const raw of grant[1]!.split(',')) {
      const privilege = raw.trim().toUpperCase().replace(/\s+/g, ' ');
      const why = MYSQL_DANGEROUS.get(privilege);
      if (why) reasons.add(`${privilege}: ${why}`);
    }
  }
  return [...reasons];
}

/** The SQL that creates a role that can only read; shown in the refusal, docs/security.md, recipes. */
export const LEAST_PRIVILEGE_SQL = {
  postgres: `CREATE ROLE mcp_reader LOGIN PASSWORD 'choose-a-password'
  NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
GRANT CONNECT ON DATABASE app TO mcp_reader;
GRANT USAGE ON SCHEMA public TO mcp_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO mcp_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO mcp_reader;`,
  mysql: `CREATE USER 'mcp_reader'@'%' IDENTIFIED BY 'choose-a-password';
GRANT SELECT, SHOW VIEW ON app.* TO 'mcp_reader'@'%';`,
} as const;

/** The refusal of a raw-SQL tool on a privileged role, for the manifest's author. */
export function privilegedRoleRefusal(
  source: string,
  role: PrivilegedRole,
): { message: string; hint: string } {
  // `role: mcp_reader` bounds fixed sql tools only: SQL the model writes can return to the login.
  const others =
    role.dialect === 'mysql'
      ? ''
      : role.login === undefined
        ? ` (\`role: mcp_reader\` on the source, with GRANT mcp_reader TO <login>, bounds fixed sql tools only: SQL the model writes can step back to the login, docs/security.md)`
        : ', and drop role: (the login is what SQL the model writes can reach)';
  const who =
    role.login === undefined
      ? `${role.dialect === 'postgres' ? 'role' : 'account'} "${role.role}"`
      : `role "${role.role}" over the login "${role.login}" (allowSqlQueryWithRole: SQL the model writes can step back to the login)`;
  return {
    message: `source "${source}" runs as ${who}, which can escape read-only: ${role.reasons.join('; ')}. This tool runs SQL the model writes, so it is not served there`,
    hint: `connect as a role that can only read${others}; or, to accept the risk, set allowPrivilegedRole: true on the source. A least-privilege role (replace app, public and the password):\n${LEAST_PRIVILEGE_SQL[role.dialect]}`,
  };
}

/**
 * One row, `lockless`: true when the effective role can take no session-level lock that would
 * outlive a transaction, so a read-only call need not end with `pg_advisory_unlock_all()` (ROLLBACK
 * releases the transaction-level ones). It must be able to execute none of the session-level
 * advisory lock functions, no SECURITY DEFINER function (which runs with its owner's rights, and
 * whose locks are the session's), and no C function an extension added (which may lock without
 * asking). A superuser executes everything. Checked when the source opens (each reload opens it
 * again): a later GRANT takes effect at the next.
 */
export const POSTGRES_LOCKLESS_QUERY = `SELECT NOT EXISTS (
  SELECT 1 FROM pg_proc p
  WHERE ((p.pronamespace = 'pg_catalog'::regnamespace
          AND p.proname IN ('pg_advisory_lock', 'pg_advisory_lock_shared',
                            'pg_try_advisory_lock', 'pg_try_advisory_lock_shared'))
         OR p.prosecdef
         OR (p.oid >= 16384 AND p.prolang IN (SELECT l.oid FROM pg_language l
                                              WHERE l.lanname IN ('c', 'internal'))))
    AND has_function_privilege(current_user, p.oid, 'EXECUTE')
) AS lockless`;
