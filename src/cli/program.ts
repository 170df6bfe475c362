/**
 * The `mcp-run` command line's commands and options (main.ts loads it for everything but a bare
 * `mcp-run <manifest>.yaml`). Each command is a thin shell over the library: parse flags, call one
 * function, print, exit with a documented code. Exit codes: 0 success, 1 a manifest with errors (or
 * an HTTP address that cannot be bound), 2 bad usage.
 */
import { realpathSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import { manifestPath, servedManifest } from './manifest-arg.js';
import { readPackageVersion } from './package-version.js';
import { SERVE_DEFAULTS } from './serve-defaults.js';

/**
 * Each command's module loads only when that command runs: `mcp-run mcp.yaml` is started by a
 * client for every session, so the OpenAPI importer and friends must not slow serving down.
 */
// biome-ignore lint/suspicious/noExplicitAny: commander passes each action its own argument list
type Action = (...args: any[]) => void | Promise<void>;
const lazy =
  <M>(load: () => Promise<M>, pick: (module: M) => Action): Action =>
  async (...args) => {
    await pick(await load())(...args);
  };
const serveCommand = lazy(
  () => import('./serve.js'),
  (m) => m.serveCommand,
);
const devCommand = lazy(
  () => import('./dev.js'),
  (m) => m.devCommand,
);
const validateCommand = lazy(
  () => import('./validate.js'),
  (m) => m.validateCommand,
);
const listCommand = lazy(
  () => import('./run-one.js'),
  (m) => m.listCommand,
);
const callCommand = lazy(
  () => import('./run-one.js'),
  (m) => m.callCommand,
);
const readCommand = lazy(
  () => import('./run-one.js'),
  (m) => m.readCommand,
);
const promptCommand = lazy(
  () => import('./run-one.js'),
  (m) => m.promptCommand,
);
const lintCommand = lazy(
  () => import('./lint.js'),
  (m) => m.lintCommand,
);
const auditCommand = lazy(
  () => import('./audit.js'),
  (m) => m.auditCommand,
);
const initCommand = lazy(
  () => import('./init.js'),
  (m) => m.initCommand,
);
const schemaCommand = lazy(
  () => import('./schema.js'),
  (m) => m.schemaCommand,
);
const testCommand = lazy(
  () => import('./test.js'),
  (m) => m.testCommand,
);
const configCommand = lazy(
  () => import('./client-config.js'),
  (m) => m.configCommand,
);
const diffCommand = lazy(
  () => import('./diff.js'),
  (m) => m.diffCommand,
);
const skillsExportCommand = lazy(
  () => import('./skills.js'),
  (m) => m.skillsExportCommand,
);
const importOpenApiCommand = lazy(
  () => import('./import.js'),
  (m) => m.importOpenApiCommand,
);
const importMcpCommand = lazy(
  () => import('./import-mcp.js'),
  (m) => m.importMcpCommand,
);

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return port;
}

/** `--workers`: a whole number from 1, or `auto` for the cores this process may use. */
function parseWorkers(value: string): number {
  if (value === 'auto') return availableParallelism();
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_WORKERS)
    throw new InvalidArgumentError(`a number of processes from 1 to ${MAX_WORKERS}, or auto (one per core)`);
  return n;
}

const MAX_WORKERS = 256;

/** `--sse-poll-ms`: a whole number of milliseconds, 0 to never poll. */
function parsePollMs(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(ms))
    throw new InvalidArgumentError('a whole number of milliseconds (0: never poll)');
  return ms;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const collectNew = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** `--toolset`, repeatable (the union), on the commands that show or run what a client sees. */
const toolsetOption = () =>
  new Option(
    '--toolset <name>',
    'be a client of this toolset: only its tools, resources and prompts (repeatable: their union; docs/toolsets.md)',
  ).argParser(collectNew);

/** The generic stdio config for ./mcp.yaml: this Node, this CLI and the manifest, absolute. */
function helpConfig(): string {
  const cli = realpathSync(fileURLToPath(new URL('./bin.cjs', import.meta.url)));
  return JSON.stringify({ command: process.execPath, args: [cli, resolve('mcp.yaml')] });
}

/** `-m/--manifest`, beside the positional manifest of every command that reads one (manifest-arg.ts). */
const manifestOption = () =>
  new Option('-m, --manifest <file>', 'the manifest (or give it as the argument; default mcp.yaml)');
// biome-ignore lint/suspicious/noExplicitAny: commander's parsed options
type Opts = Record<string, any>;
/** An action whose first argument is the manifest, however it was given. */
const withManifest =
  (action: Action) =>
  (positional: string | undefined, options: Opts): void | Promise<void> =>
    action(manifestPath(positional, options.manifest), options);
/** An action on one named thing (`call <tool> [manifest]`): the manifest goes into the options. */
const withManifestOption =
  (action: Action) =>
  (name: string, positional: string | undefined, options: Opts): void | Promise<void> =>
    action(name, { ...options, manifest: manifestPath(positional, options.manifest) });

const EXIT_MANIFEST =
  '\nExit codes: 0 success; 1 the manifest has errors; 2 bad usage (an unknown option, two different manifests).';

/** The whole command line: every command, its options and its help. */
export function commandLine(): Command {
  const program = new Command('mcp-run')
    .description(
      'Serve one YAML manifest as an MCP server, no code: SQL tools (SQLite, PostgreSQL, MySQL), HTTP tools (REST APIs, OpenAPI imports), shell tools (one program, typed arguments), files and folders as resources, and prompt templates.',
    )
    .version(readPackageVersion(), '-v, --version')
    .showSuggestionAfterError()
    // Options after a command's name are that command's own (`call x -m f` is call's -m, not serve's).
    .enablePositionalOptions()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) })
    .exitOverride((err) => process.exit(err.exitCode === 1 ? 2 : err.exitCode));

  program
    .argument('[manifest]', 'the manifest to serve (default mcp.yaml)')
    .addOption(manifestOption())
    .option(
      '--demo',
      'serve the demo shipped with mcp-run (a small shop on SQLite; its database goes to the data folder, docs/install.md)',
    )
    .addOption(
      new Option('--log-level <level>', 'what mcp-run logs to stderr')
        .choices(['debug', 'info', 'warn', 'error', 'silent'])
        .default(SERVE_DEFAULTS.logLevel),
    )
    .option('--no-watch', 'do not reload when the manifest or the files it names change')
    .option('--http', 'serve Streamable HTTP (both protocol eras) instead of stdio')
    .addOption(
      new Option('--port <n>', 'HTTP port; 0 picks a free one')
        .argParser(parsePort)
        .default(SERVE_DEFAULTS.port),
    )
    .option(
      '--host <address>',
      'HTTP bind address; beyond loopback it needs an auth option (or --allow-unauthenticated-remote)',
      SERVE_DEFAULTS.host,
    )
    .option(
      '--allow-unauthenticated-remote',
      'serve beyond loopback (--host 0.0.0.0, a LAN address) with no auth option: anyone who reaches the port can call every tool',
    )
    .option('--path <path>', 'HTTP endpoint path', SERVE_DEFAULTS.path)
    .option(
      '--toolset <name>',
      "stdio: serve only this toolset of the manifest's toolsets: (repeatable; over HTTP each has its own path, <path>/<name>)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--allowed-host <name>',
      'also accept this Host header, `name` or `name:port` (repeatable)',
      collect,
      SERVE_DEFAULTS.allowedHost,
    )
    .option(
      '--allowed-origin <origin>',
      'also accept this browser Origin, e.g. https://app.example.com (repeatable)',
      collect,
      SERVE_DEFAULTS.allowedOrigin,
    )
    .option(
      '--auth-token-env <NAME>',
      'require Authorization: Bearer <token>; NAME holds the tokens, comma-separated',
    )
    .option('--api-key-env <NAME>', 'require X-API-Key: <key>; NAME holds the keys, comma-separated')
    .option(
      '--metrics [path|port]',
      'serve Prometheus metrics: on a path of the --http server (default /metrics) or on a port of their own',
    )
    .addOption(
      new Option('--log-format <format>', 'text lines, or one JSON object a line for log pipelines')
        .choices(['text', 'json'])
        .default(SERVE_DEFAULTS.logFormat),
    )
    .option(
      '--otel [endpoint]',
      'export OpenTelemetry traces over OTLP/HTTP (default: OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318)',
    )
    .option(
      '--reload-errors-detail',
      "HTTP beyond loopback: send a failed reload's errors with their code frames to clients, not only its summary",
    )
    .option(
      '--state <url>',
      'HTTP: share 2025-era sessions with other replicas through Redis, redis://host:port[/db][?prefix=name]',
    )
    .addOption(
      new Option(
        '--workers <n|auto>',
        'HTTP: serve the port from n processes (auto: one per core); sessions, tasks and limits span them',
      ).argParser(parseWorkers),
    )
    .addOption(
      new Option(
        '--sse-poll-ms <ms>',
        'HTTP, 2025-11-25 sessions: close a call’s SSE stream after <ms> and let the client resume it (0: never)',
      ).argParser(parsePollMs),
    )
    // A function: the config's absolute paths are looked up only when the help is printed.
    .addHelpText(
      'after',
      () => `
Serves on stdio: the MCP client starts mcp-run and talks JSON-RPC on its stdin/stdout; logs go to stderr.
With --http it serves Streamable HTTP at http://127.0.0.1:3000/mcp instead.

Exit codes: 0 stopped (stdin ended, SIGTERM or SIGINT); 1 the manifest has errors, or the HTTP address cannot be bound; 2 bad usage (an unknown option, --host beyond loopback without auth).

Examples:
  $ mcp-run                        serve ./mcp.yaml
  $ mcp-run shop.yaml --log-level debug
  $ mcp-run --demo                 serve the demo shipped with mcp-run
  $ MCP_TOKENS=s3cret mcp-run --http --port 8080 --auth-token-env MCP_TOKENS

A desktop or IDE client's config for ./mcp.yaml here, from where mcp-run is installed (ready to paste;
\`mcp-run config <manifest> --client claude-desktop|vscode|cursor\` prints a client's whole block):
  ${helpConfig()}`,
    )
    .action((positional: string | undefined, options: Opts) =>
      serveCommand(servedManifest(positional, options.manifest, options.demo), options),
    );

  program
    .command('dev')
    .description(
      'serve the manifest on HTTP with a web playground beside it: catalog, forms, results, trace, live reload',
    )
    .argument('[manifest]', 'the manifest to serve (default mcp.yaml)')
    .addOption(manifestOption())
    .option('--demo', 'the demo shipped with mcp-run, in the playground (a small shop on SQLite)')
    .addOption(
      new Option('--port <n>', 'HTTP port of the endpoint and the page; 0 picks a free one')
        .argParser(parsePort)
        .default(8765),
    )
    .option(
      '--host <address>',
      'bind address; beyond loopback it needs --allow-unauthenticated-remote',
      '127.0.0.1',
    )
    .option('--open', "open the page in the desktop's browser")
    .option(
      '--allowed-origin <origin>',
      "also accept this browser Origin (the page's own, when --host is not loopback; repeatable)",
      collect,
      [],
    )
    .option(
      '--allowed-host <name>',
      'also accept this Host header, `name` or `name:port` (repeatable)',
      collect,
      [],
    )
    .option(
      '--allow-unauthenticated-remote',
      'serve beyond loopback, knowingly: anyone who reaches the port can call every tool',
    )
    .addOption(
      new Option('--log-level <level>', 'what mcp-run logs to stderr')
        .choices(['debug', 'info', 'warn', 'error', 'silent'])
        .default(SERVE_DEFAULTS.logLevel),
    )
    .addHelpText(
      'after',
      '\nThe page is a client of the MCP endpoint (/mcp) of the same origin; docs/dev.md says what it shows.\nExit codes: 0 stopped (SIGTERM or SIGINT); 1 the manifest has errors, or the port cannot be bound; 2 bad usage.\n\nExamples:\n  $ mcp-run dev\n  $ mcp-run dev recipes/shop/mcp.yaml --port 8765 --open',
    )
    .action((positional: string | undefined, options: Opts) =>
      devCommand(servedManifest(positional, options.manifest, options.demo), options),
    );

  program
    .command('validate')
    .description('check a manifest and print every error with its position; exit 1 when there is any')
    .argument('[manifest]', 'the manifest to check (default mcp.yaml)')
    .addOption(manifestOption())
    .option('--json', 'print the errors and warnings as JSON for machines')
    .option('--strict', 'fail (exit 1) on warnings too')
    .option(
      '--offline',
      'need no secret and no service: open no source, report missing env values as needed at serve time',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 valid (warnings allowed unless --strict); 1 an error, or with --strict a warning; 2 bad usage.\n\nExamples:\n  $ mcp-run validate\n  $ mcp-run validate shop.yaml --json\n  $ mcp-run validate -m shop.yaml --offline --strict',
    )
    .action(withManifest(validateCommand));

  program
    .command('list')
    .description('print the tools (with their arguments), resources, templates and prompts a manifest serves')
    .argument('[manifest]', 'the manifest (default mcp.yaml)')
    .addOption(manifestOption())
    .option('--json', 'print the lists as JSON, as a client receives them')
    .addOption(toolsetOption())
    .addHelpText(
      'after',
      `${EXIT_MANIFEST}\n\nExamples:\n  $ mcp-run list\n  $ mcp-run list shop.yaml --json\n  $ mcp-run list -m shop.yaml`,
    )
    .action(withManifest(listCommand));

  program
    .command('lint')
    .description('report what makes the server hard for a model to use, and its tools/list token cost')
    .argument('[manifest]', 'the manifest to lint (default mcp.yaml)')
    .addOption(manifestOption())
    .option('--json', 'print the report as JSON for machines')
    .addOption(toolsetOption())
    .addOption(
      new Option(
        '--tokenizer <name>',
        'what counts tokens: auto (gpt-tokenizer o200k_base or @anthropic-ai/tokenizer when installed, else the estimate), o200k, claude, estimate',
      )
        .choices(['auto', 'o200k', 'claude', 'estimate'])
        .default('auto'),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 clean or warnings only; 1 an error-level finding or a manifest with errors; 2 bad usage.\nRules, and how to silence one per entry: docs/lint.md\n\nExamples:\n  $ mcp-run lint\n  $ mcp-run lint shop.yaml --json',
    )
    .action(withManifest(lintCommand));

  const rawOption = () => new Option('--raw', 'print the raw JSON result instead of its text');
  const argOption = () =>
    new Option(
      '--arg <name=value>',
      'an argument (repeatable); typed by the input schema; an array: repeat it, or a,b, or a JSON list',
    );

  program
    .command('call')
    .description('call one tool and print its result as a client would see it; progress and logs on stderr')
    .argument('<tool>', 'the tool name')
    .argument('[manifest]', 'the manifest (or -m; default mcp.yaml)')
    .addOption(argOption().argParser(collect).default([]))
    .option('--json <object>', 'the arguments as one JSON object (--arg values win)')
    .option('--task', 'run it as a task: print the task id and its status changes on stderr, then the result')
    .addOption(manifestOption())
    .addOption(rawOption())
    .option('-y, --yes', "answer the tool's confirm step (confirm: in the manifest) with yes")
    .addOption(toolsetOption())
    .addHelpText(
      'after',
      `
Exit codes: 0 success; 1 the tool returned an error (isError), it does not exist, the task failed or was cancelled, or the manifest has errors; 2 bad usage.

Examples:
  $ mcp-run call find_orders --arg email=ada@example.com --arg limit=5
  $ mcp-run call find_orders --json '{"email": "ada@example.com"}' --raw -m shop.yaml
  $ mcp-run call build_report --task --arg month=2026-06                 runs it as a task
  $ mcp-run call tag_photo shop.yaml --arg tags=dog --arg tags=park     an array: repeat, or tags=dog,park
  $ mcp-run call delete_note --arg id=3 --yes                          answers its confirm step`,
    )
    .action(withManifestOption(callCommand));

  program
    .command('read')
    .description('read one resource (or a resource template URI) and print its contents')
    .argument('<uri>', 'the resource URI')
    .argument('[manifest]', 'the manifest (or -m; default mcp.yaml)')
    .addOption(manifestOption())
    .addOption(rawOption())
    .addOption(toolsetOption())
    .addHelpText(
      'after',
      '\nExit codes: 0 success; 1 no such resource, the read failed, or the manifest has errors; 2 bad usage.\n\nExamples:\n  $ mcp-run read shop://docs/handbook.md\n  $ mcp-run read shop://orders/1001 shop.yaml --raw',
    )
    .action(withManifestOption(readCommand));

  program
    .command('prompt')
    .description('get one prompt with its arguments and print its messages')
    .argument('<name>', 'the prompt name')
    .argument('[manifest]', 'the manifest (or -m; default mcp.yaml)')
    .addOption(argOption().argParser(collect).default([]))
    .addOption(manifestOption())
    .addOption(rawOption())
    .addOption(toolsetOption())
    .addHelpText(
      'after',
      '\nExit codes: 0 success; 1 no such prompt, a required argument missing, or the manifest has errors; 2 bad usage.\n\nExample:\n  $ mcp-run prompt summarize_customer --arg email=ada@example.com -m shop.yaml',
    )
    .action(withManifestOption(promptCommand));

  program
    .command('diff')
    .description(
      'compare two manifests, or a manifest and a running server (a URL), by what clients see: every change classed breaking, additive or changed',
    )
    .argument('<old>', 'the manifest before, or the http(s) URL of a running server')
    .argument('<new>', 'the manifest after, or a URL')
    .option('--json', 'print the changes as JSON for machines, each with its class')
    .addOption(
      new Option('--fail-on <level>', 'exit 1 when there is a change at this level').choices([
        'breaking',
        'any',
      ]),
    )
    .option(
      '--header <line>',
      'a header for a URL side, e.g. "Authorization: Bearer …" (repeatable)',
      collect,
      [],
    )
    .addHelpText(
      'after',
      `
Breaking: a tool, resource or prompt removed or renamed; an input field removed or made required, a
narrower type, enum or bound, a changed default; an output field removed, a wider output type or
enum; a tool losing readOnlyHint or gaining destructiveHint. Additive: the opposite ones. Changed:
descriptions and titles. (docs/contract.md has every rule.) Both manifests compile as when serving.
When NEW says \`reload: { refuseBreaking: true }\`, a breaking change fails as its server would refuse it.

Exit codes: 0 no change at the --fail-on level (without it: no breaking change NEW refuses); 1 a change at that level, or a breaking change NEW refuses (RELOAD_BREAKING_CHANGE); 2 bad usage; 3 a side cannot be read (a manifest with errors, a server that does not answer).

Examples:
  $ git show main:mcp.yaml > /tmp/old.yaml && mcp-run diff /tmp/old.yaml mcp.yaml --fail-on breaking
  $ mcp-run diff http://127.0.0.1:3000/mcp mcp.yaml --json
  $ mcp-run diff https://mcp.example.com/mcp mcp.yaml --header "Authorization: Bearer $TOKEN"`,
    )
    .action(diffCommand);

  program
    .command('config')
    .description("print a desktop or IDE client's config for this server: absolute paths, ready to paste")
    .argument('[manifest]', 'the manifest the client should serve (default mcp.yaml)')
    .addOption(manifestOption())
    .addOption(
      new Option('--client <name>', 'which client the block is for')
        .choices(['claude-desktop', 'vscode', 'cursor', 'generic'])
        .default('generic'),
    )
    .addHelpText(
      'after',
      `
The block names this Node (process.execPath), this installation's dist/cli/bin.cjs and the manifest,
all absolute: clients start servers from a folder of their own choosing. Where to paste it, and the
variables the manifest reads (for the client's "env" block), go to stderr.

Exit codes: 0 printed; 2 bad usage (an unknown client).

Examples:
  $ mcp-run config --client claude-desktop
  $ mcp-run config recipes/weather/mcp.yaml --client vscode >> .vscode/mcp.json   then merge the "servers"`,
    )
    .action(withManifest(configCommand));

  program
    .command('init')
    .description(
      'write a starter mcp.yaml, or copy a recipe (manifest, README, files) into a folder and name the variables it needs',
    )
    .option(
      '--recipe [name]',
      'start from a recipe in recipes/ instead of the starter; alone: list them and what each needs',
    )
    .option('--dir <folder>', 'where to write', '.')
    .option('--force', 'replace files that exist')
    .addHelpText(
      'after',
      '\nExit codes: 0 written; 1 a file exists (use --force); 2 no such recipe.\n\nExamples:\n  $ mcp-run init\n  $ mcp-run init --recipe              the recipes, and which need a network or a database\n  $ mcp-run init --recipe bookstore --dir ./books',
    )
    .action(initCommand);

  program
    .command('schema')
    .description("print the manifest's JSON Schema (editors use it for completion and checks)")
    .option('--markdown', 'print the manifest reference rendered from the schema instead')
    .addHelpText(
      'after',
      '\nExit codes: 0 printed; 2 bad usage.\n\nExamples:\n  $ mcp-run schema > schemas/manifest.schema.json\n  $ mcp-run schema --markdown > docs/manifest.md',
    )
    .action(schemaCommand);

  program
    .command('test')
    .description(
      'run the test cases of manifests (their tests: section, tests/*.yaml beside them); HTTP upstreams replay recorded fixtures',
    )
    .argument('[paths...]', 'manifests, test files, or folders of recipes (default mcp.yaml)')
    .addOption(manifestOption())
    .addOption(
      new Option('--reporter <format>', 'how to print results')
        .choices(['spec', 'tap', 'junit'])
        .default('spec'),
    )
    .option('-o, --output <file>', 'write the tap or junit report here (and the readable one to stdout)')
    .option('--update', 'write snapshots that are missing or differ, instead of failing')
    .option(
      '--record',
      'send HTTP requests to the real upstreams and write the fixtures, instead of replaying',
    )
    .option('--live', 'send an HTTP request no fixture answers to the real upstream, without recording it')
    .addOption(toolsetOption())
    .addHelpText(
      'after',
      '\nExit codes: 0 no case failed (passed, skipped, or needs --record outside CI); 1 a case failed; 2 bad usage.\nWith CI set (CI=true), a missing snapshot or HTTP fixture fails instead of being written or waiting for --record.\n\nExamples:\n  $ mcp-run test\n  $ mcp-run test recipes --reporter junit -o junit.xml\n  $ mcp-run test shop.yaml --update',
    )
    .action((paths: string[], options: Opts) =>
      testCommand([...paths, ...(options.manifest === undefined ? [] : [options.manifest])], options),
    );

  program
    .command('skills')
    .description("the skills made from the manifest's toolsets (see `mcp-run skills export --help`)")
    .addHelpText('after', '\nExit codes: see each subcommand.')
    .command('export')
    .description(
      'write the skill made from each toolset (skills: { fromToolsets }) to a folder for review, one folder per skill',
    )
    .argument('[manifest]', 'the manifest (default mcp.yaml)')
    .addOption(manifestOption())
    .requiredOption('--out <dir>', 'the folder to write the skills into (each in <dir>/<skill name>/)')
    .option(
      '--toolset <name>',
      "only this toolset's skill (repeatable); default: those skills.fromToolsets names, else every toolset",
      collectNew,
    )
    .option('--force', "replace a skill's folder that holds something else")
    .addHelpText(
      'after',
      '\nThe files are byte for byte what the server serves. A folder already identical is left alone; one that holds anything else is refused, and nothing is written, unless --force (which replaces it).\n\nExit codes: 0 written (or unchanged); 1 the manifest has errors, or a folder is in the way; 2 bad usage (no --out, an unknown toolset, a manifest without toolsets).\n\nExamples:\n  $ mcp-run skills export --out skills\n  $ mcp-run skills export shop.yaml --out review --toolset billing --force',
    )
    .action(withManifest(skillsExportCommand));

  program
    .command('audit')
    .description(
      "print an audit trail's records (server.audit), filtered, and verify its hash chain: an edited or removed line, or a missing rotated file, is named by file and line",
    )
    .argument('<files...>', 'the audit files, rotated ones too (audit.jsonl.1 … audit.jsonl), in any order')
    .option('--since <time>', 'records at or after an ISO time, or this long ago: 30m, 12h, 7d')
    .option('--caller <who>', "records of this caller: a subject, a token's label, a client id or an issuer")
    .option(
      '--entry <name>',
      'records of this tool, prompt or resource URI (* matches any run of characters)',
    )
    .addOption(
      new Option('--decision <decision>', 'records with this decision').choices(['allow', 'deny', 'limit']),
    )
    .option('--json', 'print the matching records as written, one JSON object a line')
    .option('--verify', 'verify the chain only: print a summary and every break, no records')
    .addHelpText(
      'after',
      `
The chain is verified on every run; breaks go to stderr as "chain broken at FILE:LINE: why".

Exit codes: 0 the chain holds; 1 it is broken; 2 bad usage; 3 a file cannot be read.

Examples:
  $ mcp-run audit audit.jsonl* --verify
  $ mcp-run audit audit.jsonl --since 12h --decision deny
  $ mcp-run audit audit.jsonl* --caller alice@example.com --entry 'orders_*' --json`,
    )
    .action(auditCommand);

  const importing = program
    .command('import')
    .description(
      'generate a manifest from an API description or another MCP server (see `mcp-run import openapi --help`, `mcp-run import mcp --help`)',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 done; 1 the document cannot be imported; 2 bad usage (see each subcommand).',
    );
  importing
    .command('mcp')
    .description("write another MCP server's tools, resources and prompts into a manifest, one at a time")
    .argument('[command...]', 'the upstream program and its arguments, after `--` (run without a shell)')
    .option('--url <url>', 'a Streamable HTTP upstream instead of a program')
    .option('--name <name>', 'the source name in the manifest (default: upstream)')
    .option('-o, --output <file>', 'write the manifest here instead of stdout')
    .option('--force', 'replace an existing -o file instead of refusing')
    .addHelpText(
      'after',
      `
Each entry's description is written into the manifest: it is then the manifest's, and a later change upstream reaches no client (docs/upstream-mcp.md). Text from the upstream is written as data.

Exit codes: 0 done; 1 the upstream cannot be started or read, or the output exists (use --force); 2 bad usage (neither or both of a command and --url, a bad --name).

Examples:
  $ mcp-run import mcp -- npx -y @modelcontextprotocol/server-memory > mcp.yaml
  $ mcp-run import mcp --name search --url https://search.example.com/mcp -o mcp.yaml`,
    )
    .action(importMcpCommand);
  importing
    .command('openapi')
    .description('turn an OpenAPI 3.x or Swagger 2.0 document into a manifest of http tools')
    .argument('<spec>', 'the API description, a local YAML or JSON file')
    .option('--tags <list>', 'only operations with one of these tags, comma-separated')
    .option('--operations <list>', 'only these operations (operationId or tool name), comma-separated')
    .option(
      '--name <name>',
      'short API name: the source name, and the prefix of its variables (NAME_BASE_URL, …)',
    )
    .option(
      '-o, --output <file>',
      'write the manifest here (and a .mcp-run-import.<file>.json record) instead of stdout',
    )
    .option('--merge', 'update the existing -o manifest from the document, keeping your edits')
    .option('--force', 'replace an existing -o file instead of refusing')
    .option('--no-output-schema', "leave out the tools' output schemas (the largest part of a big API)")
    .option('--inline-schemas', 'inline the schemas at every use instead of writing them once under schemas:')
    .option('--split', 'with -o FILE: the tools one file per tag (tools/<tag>.yaml), included by FILE')
    .option(
      '--overlay <file>',
      'an OpenAPI Overlay 1.0 document applied to the description first (repeatable; recorded for --update)',
      collect,
      [],
    )
    .option(
      '--allow-ref-dir <dir>',
      "a folder outside the document's own that file $refs may read (repeatable; not recorded)",
      collect,
      [],
    )
    .option(
      '--update <manifest>',
      're-import into this manifest, keeping your edits (renamed and removed tools, descriptions, output shaping), and print what changed for clients',
    )
    .addHelpText(
      'after',
      `
Only the document's folder is read: a file $ref that leaves it (by .., an absolute path or a symbolic link) is refused unless --allow-ref-dir names the folder; URLs are never fetched.

Exit codes: 0 done; 1 the document cannot be read or imported (or an overlay applied), nothing in it can be imported, the output exists (use --update, --merge or --force), the --update manifest does not exist, or what was written is larger than the 4 MiB load limit; 2 bad usage (unknown --tags or --operations, --merge without -o, --split without -o or with --merge, --update with -o, --merge, --force or --split).

Examples:
  $ mcp-run import openapi petstore.yaml > mcp.yaml
  $ mcp-run import openapi api.json --tags pets,store --name petstore -o mcp.yaml
  $ mcp-run import openapi api.json --update mcp.yaml       after the API changed; keeps your edits, prints the contract diff
  $ mcp-run import openapi api.json --overlay fixes.yaml -o mcp.yaml   Overlay 1.0 edits applied first
  $ mcp-run import openapi github.json --split -o github.yaml one file per tag under tools/`,
    )
    .action(importOpenApiCommand);

  return program;
}
