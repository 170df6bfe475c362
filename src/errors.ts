/**
 * The catalogue of user-facing error codes. Each code has one factory; `docs/errors.md` documents
 * every code (a test keeps the two in sync). A Problem says what is wrong and how to fix it; the
 * manifest pipeline turns it into a Diagnostic by adding where (file:line:col, dotted path, frame).
 */
import { escapeControls } from './util/escape-controls.js';

export interface Problem {
  readonly code: ErrorCode;
  readonly message: string;
  readonly hint?: string;
}

/** File order; diagnostics without a position (about the whole file) first. Sorts in place, stably. */
export function sortByPosition(list: Diagnostic[]): Diagnostic[] {
  return list.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
}

export interface Diagnostic extends Problem {
  readonly file: string;
  readonly line?: number;
  readonly col?: number;
  /** Dotted path into the manifest, e.g. `tools.find_orders.sql`. */
  readonly path?: string;
  /** A few lines of the manifest with a caret under the column. */
  readonly frame?: string;
  /** A warning does not make the manifest invalid (unless `validate --strict`); absent means error. */
  readonly severity?: 'warning';
}

/** Everything wrong with one manifest, in file order. */
export class ManifestError extends Error {
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n\n'));
    this.name = 'ManifestError';
  }
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line === undefined ? d.file : `${d.file}:${d.line}:${d.col ?? 1}`;
  const lines = [
    `${d.severity ?? 'error'}[${d.code}] ${where}${d.path ? ` ${d.path}` : ''}`,
    `  ${d.message}`,
  ];
  if (d.frame) lines.push(d.frame.replace(/^/gm, '    '));
  if (d.hint) lines.push(`  hint: ${d.hint}`);
  return lines.join('\n');
}

const quote = (s: string) => JSON.stringify(s);
const didYouMean = (s: string | undefined) => (s ? ` (did you mean ${quote(s)}?)` : '');

/** One factory per code. Keep the keys in sync with docs/errors.md. */
export const problems = {
  MANIFEST_READ: (file: string, reason: string): Problem => ({
    code: 'MANIFEST_READ',
    message: `cannot read the manifest ${quote(file)}: ${reason}`,
    hint: 'check the path; `mcp-run init` writes a starter mcp.yaml',
  }),
  MANIFEST_YAML: (reason: string, hint?: string): Problem => ({
    code: 'MANIFEST_YAML',
    message: `invalid YAML: ${reason}`,
    hint,
  }),
  MANIFEST_EMPTY: (): Problem => ({
    code: 'MANIFEST_EMPTY',
    message: 'the manifest declares nothing: no sources, tools, resources or prompts section',
    hint: 'a file saved half-way reads as empty; add at least one section (`tools:`), or run `mcp-run init`',
  }),
  MANIFEST_MISSING_FIELD: (field: string, owner: string): Problem => ({
    code: 'MANIFEST_MISSING_FIELD',
    message: `${owner} is missing the required field ${quote(field)}`,
  }),
  MANIFEST_UNKNOWN_FIELD: (
    field: string,
    owner: string,
    known: readonly string[],
    suggestion?: string,
  ): Problem => ({
    code: 'MANIFEST_UNKNOWN_FIELD',
    message: `unknown field ${quote(field)} in ${owner}${didYouMean(suggestion)}`,
    hint: known.length ? `allowed fields: ${known.join(', ')}` : undefined,
  }),
  MANIFEST_INVALID_VALUE: (expected: string, hint?: string): Problem => ({
    code: 'MANIFEST_INVALID_VALUE',
    message: expected,
    hint,
  }),
  MANIFEST_INVALID_NAME: (section: string, name: string, pattern: string): Problem => ({
    code: 'MANIFEST_INVALID_NAME',
    message: `invalid ${section} name ${quote(name)}: names must match ${pattern}`,
  }),
  MANIFEST_UNKNOWN_KIND: (
    section: string,
    kind: string,
    known: readonly string[],
    suggestion?: string,
  ): Problem => ({
    code: 'MANIFEST_UNKNOWN_KIND',
    message: `unknown ${section} kind ${quote(kind)}; known kinds: ${known.join(', ')}${didYouMean(suggestion)}`,
  }),
  ENV_MISSING: (name: string): Problem => ({
    code: 'ENV_MISSING',
    message: `environment variable ${name} is not set`,
    hint: `set ${name}, or give a default with \${env:${name}:-default}`,
  }),
  ENV_NEEDED_AT_SERVE: (name: string): Problem => ({
    code: 'ENV_NEEDED_AT_SERVE',
    message: `environment variable ${name} is not set; it is needed at serve time (not checked offline)`,
    hint: `set ${name} where the server runs; this entry is checked fully only when it is set`,
  }),
  SECRET_FILE_UNREADABLE: (file: string, reason: string): Problem => ({
    code: 'SECRET_FILE_UNREADABLE',
    message: `cannot read the secret file ${file}: ${reason}`,
    hint: 'mount the secret there (a Docker or Kubernetes secret), or fix the path; a relative path is taken from the manifest folder',
  }),
  SECRET_FILE_NEEDED_AT_SERVE: (file: string): Problem => ({
    code: 'SECRET_FILE_NEEDED_AT_SERVE',
    message: `the secret file ${file} cannot be read here; it is needed at serve time (not checked offline)`,
    hint: 'mount it where the server runs; this entry is checked fully only when it can be read',
  }),
  ENTRY_WARNING: (message: string): Problem => ({
    code: 'ENTRY_WARNING',
    message,
    hint: 'the manifest is valid, but this is likely not what you meant; `validate --strict` fails on it',
  }),
  SOURCE_UNKNOWN: (name: string, known: readonly string[], suggestion?: string): Problem => ({
    code: 'SOURCE_UNKNOWN',
    message: `unknown source ${quote(name)}${didYouMean(suggestion)}`,
    hint: known.length ? `declared sources: ${known.join(', ')}` : 'declare it under `sources:`',
  }),
  SOURCE_INCOMPATIBLE: (name: string, kind: string, capability: string): Problem => ({
    code: 'SOURCE_INCOMPATIBLE',
    message: `source ${quote(name)} (kind ${kind}) cannot serve ${capability}`,
  }),
  SOURCE_OPEN_FAILED: (name: string, reason: string): Problem => ({
    code: 'SOURCE_OPEN_FAILED',
    message: `cannot open source ${quote(name)}: ${reason}`,
  }),
  SOURCE_TOKEN_EXCHANGE_REFUSED: (name: string, reason: string, hint: string): Problem => ({
    code: 'SOURCE_TOKEN_EXCHANGE_REFUSED',
    message: `source ${quote(name)}: ${reason}`,
    hint,
  }),
  UPSTREAM_ENTRY_UNKNOWN: (
    what: string,
    name: string,
    source: string,
    known: readonly string[],
    suggestion?: string,
  ): Problem => ({
    code: 'UPSTREAM_ENTRY_UNKNOWN',
    // The upstream's names are data: escaped, never a terminal's instructions.
    message: `the upstream server of source ${quote(source)} lists no ${what} ${quote(name)}${didYouMean(suggestion && escapeControls(suggestion))}`,
    hint: known.length
      ? `it lists: ${known.slice(0, 20).map(escapeControls).join(', ')}${known.length > 20 ? ', …' : ''}`
      : `it lists no ${what}s`,
  }),
  SOURCE_ENGINE_NOT_INSTALLED: (name: string, kind: string, pkg: string, hint: string): Problem => ({
    code: 'SOURCE_ENGINE_NOT_INSTALLED',
    message: `source ${quote(name)} (kind ${kind}) needs ${pkg}, which is not installed: mcp-run leaves this engine out of its default install for its size`,
    hint,
  }),
  SQL_PARAM_UNDECLARED: (param: string, declared: readonly string[], suggestion?: string): Problem => ({
    code: 'SQL_PARAM_UNDECLARED',
    message: `the SQL uses :${param} but input has no property ${quote(param)}${didYouMean(suggestion)}`,
    hint: declared.length
      ? `declared input: ${declared.join(', ')}`
      : `declare it under input, e.g. input: { ${param}: { type: string } }`,
  }),
  SQL_WRITE_NOT_ALLOWED: (reason: string): Problem => ({
    code: 'SQL_WRITE_NOT_ALLOWED',
    message: `${reason}`,
    hint: 'writes need readOnly: false on both the source and the tool; otherwise keep the statement a single read (SELECT, WITH, VALUES)',
  }),
  SQL_QUERY_WITH_ROLE: (source: string, role: string, login: string, leastPrivilege: string): Problem => ({
    code: 'SQL_QUERY_WITH_ROLE',
    message: `source ${quote(source)} runs each call as role ${quote(role)} (role:) over the login ${quote(login)}, and SQL the model writes can step back to the login: a function that runs SQL from a string (query_to_xml, query_to_xml_and_xmlschema, ts_stat, ts_rewrite, an extension's) can call set_config('role', 'none', true), and what runs after it has every right of ${quote(login)}. role: does not bound sql-query, so this tool is not served there`,
    hint: `serve sql-query from a source whose login is itself the reader, without \`role:\` (fixed sql tools may keep role:, their values are bound); or, to accept that the model reads whatever ${quote(login)} can, set allowSqlQueryWithRole: true on the source (the role check then inspects the login as well). A least-privilege login (replace app, public and the password):\n${leastPrivilege}`,
  }),
  SQL_IDENTIFIER_NOT_ENUM: (name: string): Problem => ({
    code: 'SQL_IDENTIFIER_NOT_ENUM',
    message: `the identifier :${name} needs an enum of the allowed names under input.${name}`,
    hint: `a table or column name is spliced into the SQL, so it may only be one of a fixed list, e.g. input: { ${name}: { type: string, enum: [orders, customers] } }`,
  }),
  SQL_INVALID: (reason: string): Problem => ({
    code: 'SQL_INVALID',
    message: `the database cannot run this SQL: ${reason}`,
    hint: 'check the statement against the schema; it is prepared (not run) when the manifest loads',
  }),
  TEMPLATE_SYNTAX: (reason: string): Problem => ({
    code: 'TEMPLATE_SYNTAX',
    message: `template does not parse: ${reason}`,
  }),
  TEMPLATE_UNKNOWN_VARIABLE: (name: string, declared: readonly string[], suggestion?: string): Problem => ({
    code: 'TEMPLATE_UNKNOWN_VARIABLE',
    message: `the template uses {{${name}}} but no argument or variable ${quote(name)} is declared${didYouMean(suggestion)}`,
    hint: declared.length ? `declared: ${declared.join(', ')}` : undefined,
  }),
  PATH_NOT_FOUND: (path: string): Problem => ({
    code: 'PATH_NOT_FOUND',
    message: `no file or folder at ${quote(path)}`,
    hint: 'relative paths are resolved from the folder of the manifest',
  }),
  PATH_OUTSIDE_ROOT: (path: string, root: string): Problem => ({
    code: 'PATH_OUTSIDE_ROOT',
    message: `${quote(path)} resolves outside its root ${quote(root)}`,
    hint: 'paths (after following symlinks) must stay inside their root; set `root:` to a folder that contains them',
  }),
  URI_DUPLICATE: (uri: string, other: string): Problem => ({
    code: 'URI_DUPLICATE',
    message: `resource URI ${quote(uri)} is already served by ${other}`,
  }),
  TOOLSET_UNKNOWN_MEMBER: (
    section: string,
    name: string,
    known: readonly string[],
    suggestion?: string,
  ): Problem => ({
    code: 'TOOLSET_UNKNOWN_MEMBER',
    message: `the toolset names ${quote(name)}, which is not one of the manifest's ${section}${didYouMean(suggestion)}`,
    hint: known.length
      ? `${section}: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}; a name with * matches many`
      : `the manifest has no ${section}`,
  }),
  TOOLSET_UNKNOWN: (name: string, known: readonly string[], suggestion?: string): Problem => ({
    code: 'TOOLSET_UNKNOWN',
    message: `no toolset is named ${quote(name)}${didYouMean(suggestion)}`,
    hint: known.length
      ? `toolsets: ${known.join(', ')}`
      : 'declare it under the top-level `toolsets:` section',
  }),
  POLICY_SYNTAX: (reason: string): Problem => ({
    code: 'POLICY_SYNTAX',
    message: `the policy expression does not parse: ${reason}`,
    hint: 'policies are CEL, e.g. "admin" in claims.roles && args.limit <= 100 (docs/governance.md#policies)',
  }),
  POLICY_TYPE: (reason: string, args?: readonly string[]): Problem => ({
    code: 'POLICY_TYPE',
    message: `the policy expression does not type-check: ${reason}`,
    hint: `it may read claims, entry (name, section, annotations), toolset and args${args === undefined ? '' : args.length > 0 ? ` (this entry's arguments: ${args.join(', ')})` : ' (this entry takes no arguments)'}, and must be a bool`,
  }),
  POLICY_UNKNOWN: (name: string, known: readonly string[], suggestion?: string): Problem => ({
    code: 'POLICY_UNKNOWN',
    message: `no server policy is named ${quote(name)}${didYouMean(suggestion)}`,
    hint: known.length ? `server.policies: ${known.join(', ')}` : 'declare it under server.policies',
  }),
  MIRROR_NAME_TAKEN: (tool: string, other: string): Problem => ({
    code: 'MIRROR_NAME_TAKEN',
    message: `this entry is mirrored as the tool ${quote(tool)}, which is already ${other}`,
    hint: 'give the mirror another name with `mirror: { name: … }`, rename the other one, or set `mirror: false`',
  }),
  URI_TEMPLATE_INVALID: (reason: string): Problem => ({
    code: 'URI_TEMPLATE_INVALID',
    message: `invalid URI template: ${reason}`,
  }),
  SCHEMA_INVALID: (reason: string): Problem => ({
    code: 'SCHEMA_INVALID',
    message: `not a valid JSON Schema: ${reason}`,
  }),
  HTTP_PATH_PARAM_UNDECLARED: (param: string, declared: readonly string[], suggestion?: string): Problem => ({
    code: 'HTTP_PATH_PARAM_UNDECLARED',
    message: `the path uses {${param}} but input has no property ${quote(param)}${didYouMean(suggestion)}`,
    hint: declared.length
      ? `declared input: ${declared.join(', ')}`
      : `declare it under input, e.g. input: { ${param}: { type: string } }`,
  }),
  OUTPUT_PICK_INVALID: (reason: string): Problem => ({
    code: 'OUTPUT_PICK_INVALID',
    message: `output.pick does not parse: ${reason}`,
    hint: 'write a path like items[*].{id, title} or {title, user: user.login}; see docs/kinds-http-shell.md',
  }),
  SHELL_PROGRAM_NOT_FOUND: (program: string, reason: string): Problem => ({
    code: 'SHELL_PROGRAM_NOT_FOUND',
    message: `cannot run ${quote(program)}: ${reason}`,
    hint: 'name a program on PATH (git, not /usr/bin/git) or an executable file inside the manifest folder (./bin/tool)',
  }),
  HTTP_AUTH_ENV_MISSING: (name: string, flag: string): Problem => ({
    code: 'HTTP_AUTH_ENV_MISSING',
    message: `${flag} names the environment variable ${name}, but it is not set or holds no value`,
    hint: `set ${name} to one or more credentials, comma-separated, e.g. ${name}=$(openssl rand -hex 32)`,
  }),
  HTTP_LISTEN_FAILED: (address: string, reason: string): Problem => ({
    code: 'HTTP_LISTEN_FAILED',
    message: `cannot listen on ${address}: ${reason}`,
    hint: 'another process may hold the port: pick another with --port (0 picks a free one), or stop it',
  }),
  OPENAPI_READ: (file: string, reason: string): Problem => ({
    code: 'OPENAPI_READ',
    message: `cannot read the API description ${quote(file)}: ${reason}`,
    hint: 'pass a local OpenAPI 3.x or Swagger 2.0 file, YAML or JSON (download a remote one first)',
  }),
  OPENAPI_INVALID: (reason: string): Problem => ({
    code: 'OPENAPI_INVALID',
    message: `not an OpenAPI document mcp-run can import: ${reason}`,
    hint: 'the document needs `openapi: 3.x.y` (or `swagger: "2.0"`) at the top and a `paths:` map',
  }),
  OPENAPI_OVERLAY_INVALID: (reason: string): Problem => ({
    code: 'OPENAPI_OVERLAY_INVALID',
    message: `not an Overlay 1.0 document mcp-run can apply: ${reason}`,
    hint: 'an overlay has `overlay: 1.0.0`, `info:` and `actions:`, each with a JSONPath `target` and an `update` or `remove: true`',
  }),
  OPENAPI_REF: (ref: string, reason: string): Problem => ({
    code: 'OPENAPI_REF',
    message: `cannot resolve $ref ${quote(ref)}: ${reason}`,
    hint: 'local refs (#/components/…) and relative files (common.yaml#/Pet) are followed; URLs are not fetched',
  }),
  OPENAPI_REF_OUTSIDE: (ref: string, file: string, folder: string, linked: boolean): Problem => ({
    code: 'OPENAPI_REF_OUTSIDE',
    message: `$ref ${quote(ref)} reads ${quote(file)}, outside the document's folder ${quote(folder)}${linked ? ' (through a symbolic link)' : ''}: the import reads only the files it was given`,
    hint: 'if you trust the folder that holds it, name that folder with --allow-ref-dir DIR (repeatable)',
  }),
  OPENAPI_TOO_DEEP: (where: string, limit: number): Problem => ({
    code: 'OPENAPI_TOO_DEEP',
    message: `the schema at ${where} nests more than ${limit} levels deep`,
    hint: 'no API needs that depth: fix the document, or leave the operation out with --tags or --operations (an overlay can remove it)',
  }),
  OPENAPI_TOO_LARGE: (where: string, limit: number): Problem => ({
    code: 'OPENAPI_TOO_LARGE',
    message: `inlining the schemas passed ${limit.toLocaleString('en-US')} values while expanding ${where}: its $refs multiply (each schema referencing the next more than once)`,
    hint: 'import without --inline-schemas (shared schemas are written once), or fix the schema in the document',
  }),
  OPENAPI_UNKNOWN_OPERATION: (name: string, known: readonly string[], suggestion?: string): Problem => ({
    code: 'OPENAPI_UNKNOWN_OPERATION',
    message: `--operations names ${quote(name)}, which is not an operation of the document${didYouMean(suggestion)}`,
    hint: `operations: ${known.join(', ')}`,
  }),
  OPENAPI_UNKNOWN_TAG: (tag: string, known: readonly string[], suggestion?: string): Problem => ({
    code: 'OPENAPI_UNKNOWN_TAG',
    message: `--tags names ${quote(tag)}, which no operation of the document has${didYouMean(suggestion)}`,
    hint: known.length ? `tags: ${known.join(', ')}` : 'the document has no tags; select with --operations',
  }),
  IMPORT_NOTHING: (skipped: number): Problem => ({
    code: 'IMPORT_NOTHING',
    message: `no operation could be imported: ${skipped === 1 ? 'the one selected was' : `all ${skipped} selected were`} skipped (the warnings above say why)`,
    hint: 'select other operations with --tags or --operations, or write these tools by hand',
  }),
  MANIFEST_INCLUDE: (file: string, reason: string): Problem => ({
    code: 'MANIFEST_INCLUDE',
    message: `cannot include ${quote(file)}: ${reason}`,
    hint: "an included file is a manifest of sources/tools/resources/prompts/schemas in the including file's folder (or below it)",
  }),
  MANIFEST_MISINDENTED: (field: string, readAs: string, homes: readonly string[]): Problem => ({
    code: 'MANIFEST_MISINDENTED',
    message: `${quote(field)} is read as part of ${readAs}, where it does not belong: it may be misindented`,
    hint: `to put it ${homes.join(' or ')}, line it up with the keys there`,
  }),
  MANIFEST_DUPLICATE_ENTRY: (what: string, other: string): Problem => ({
    code: 'MANIFEST_DUPLICATE_ENTRY',
    message: `${what} is declared twice: here and in ${other}`,
    hint: 'names must be unique across a manifest and the files it includes; rename or remove one',
  }),
  SCHEMA_UNKNOWN: (name: string, known: readonly string[], suggestion?: string): Problem => ({
    code: 'SCHEMA_UNKNOWN',
    message: `$ref names schemas.${name}, which the manifest does not declare${didYouMean(suggestion)}`,
    hint: known.length
      ? `declared schemas: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}`
      : 'declare it under the top-level `schemas:` section',
  }),
  IMPORT_OUTPUT_EXISTS: (file: string): Problem => ({
    code: 'IMPORT_OUTPUT_EXISTS',
    message: `${quote(file)} exists; not writing over it`,
    hint: 'add --merge to update it and keep your edits, or --force to replace it',
  }),
  RELOAD_BREAKING_CHANGE: (summary: string): Problem => ({
    code: 'RELOAD_BREAKING_CHANGE',
    message: `the edit breaks the contract for clients (${summary}); reload.refuseBreaking keeps the previous version serving`,
    hint: 'make the change additive (a new optional field, a new tool beside the old one), or set reload.refuseBreaking: false for this edit',
  }),
  UPSTREAM_DESCRIPTION_CHANGED: (count: number): Problem => ({
    code: 'UPSTREAM_DESCRIPTION_CHANGED',
    message: `an upstream changed the description of ${count} served entr${count === 1 ? 'y' : 'ies'} (each named in the log); its source says descriptionChange: refuse, so the previous version keeps serving`,
    hint: 'read the new text; to serve it, declare the description in the manifest (it is then yours), or set descriptionChange: report on the source and reload',
  }),
  SKILL_FRONTMATTER: (message: string, hint?: string): Problem => ({
    code: 'SKILL_FRONTMATTER',
    message,
    hint: hint ?? 'a SKILL.md begins with ---, name: <its folder>, description: <when to use it>, then ---',
  }),
  SKILL_TOO_LARGE: (skill: string, found: string): Problem => ({
    code: 'SKILL_TOO_LARGE',
    message: `the skill ${quote(skill)} is larger than the skills extension allows: ${found}`,
    hint: 'hosts need not load a skill past 512 files or 16 MiB: split it, or move large assets out',
  }),
} as const;

export type ErrorCode = keyof typeof problems;
