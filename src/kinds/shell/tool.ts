/**
 * Tool `shell`: runs one program with an argument vector, never through a shell. Each element of
 * `command` is a Handlebars template rendered alone (one element is one argument, whatever the value
 * holds); a rendered argument starting with `-` is refused unless the manifest wrote that dash or a
 * `--` before it. The program is a bare name found on PATH or a file inside the manifest folder,
 * resolved when the manifest loads; it runs in `cwd` (inside `root`) with only the environment
 * variables the manifest lets through, in its own process group, with a time limit and output caps.
 *
 * stdout is the result (and, when the tool declares an outputSchema and stdout is a JSON object, the
 * structured result); stderr lines are sent as log messages (at most MAX_LOG_LINES / MAX_LOG_BYTES
 * per call); a non-zero exit is an error result. The values of `env:` are secrets, replaced by `***`
 * in all of it (redact.ts). A tool runs at most DEFAULT_MAX_CONCURRENCY calls at once unless the
 * manifest's `maxConcurrency` says otherwise (the catalog enforces it), and all shell tools together
 * at most PROGRAMS_LIMIT programs; everything a call started dies with it (../shared/process-tree.ts).
 *
 * @example
 * ```yaml
 * tools:
 *   recent_commits:
 *     kind: shell
 *     description: The last commits of the repository.
 *     command: [git, log, --oneline, -n, "{{count}}"]
 *     cwd: .
 *     timeoutMs: 5000
 *     input:
 *       count: { type: integer, default: 10, maximum: 200 }
 * ```
 */
import { realpathSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { problems } from '../../errors.js';
import { acquire, QUEUE_WAIT_MS, Slots } from '../../util/slots.js';
import type { EntryPath, KindContext, ToolCommon, ToolKind } from '../contract/kinds.js';
import { errorResult } from '../contract/results.js';
import type { ToolResult } from '../contract/types.js';
import { isInside, realpathInside } from '../shared/paths.js';
import { trackErrors } from '../shared/tracked-context.js';
import { ABSENT, compileString, evaluateTree, type ValueNode } from '../shared/value-tree.js';
import { compileArgv } from './argv.js';
import { resolveProgram } from './program.js';
import { redactor, secretsOfEnv } from './redact.js';
import { outcomeResult, progressPattern } from './result.js';
import { runProcess } from './run-process.js';
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_SHELL_TIMEOUT_MS,
  MAX_LOG_BYTES,
  MAX_LOG_LINES,
  shellToolInfo,
} from './tool.info.js';

/** Calls of one shell tool at once, unless its `maxConcurrency` says otherwise. */
export const DEFAULT_MAX_CONCURRENCY = 4;
/** Programs of all shell tools of this process at once. */
export const PROGRAMS_LIMIT = 16;
const programs = new Slots(PROGRAMS_LIMIT);

export interface ShellToolConfig extends ToolCommon {
  readonly command: readonly string[];
  readonly cwd?: string;
  readonly root?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly envPassthrough?: readonly string[];
  readonly stdin?: string;
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  readonly progress?: { readonly pattern: string };
  readonly logStderr?: boolean;
}

const DEFAULT_PASSTHROUGH = ['PATH', 'HOME', 'LANG'];

export const shellTool: ToolKind<ShellToolConfig> = {
  ...shellToolInfo,

  compile(config, entryCtx) {
    const { ctx, failed } = trackErrors(entryCtx);
    const declared = Object.keys(config.input ?? {});
    const realRoot = realFolder(config.root ?? '.', ['root'], ctx);
    // A templated cwd (e.g. the client's root) is resolved and checked inside root on each call.
    const cwdTemplate = config.cwd?.includes('{{')
      ? compileString(config.cwd, declared, ['cwd'], ctx)
      : undefined;
    const cwd = realRoot && (cwdTemplate ? realRoot : realFolder(config.cwd ?? '.', ['cwd'], ctx));
    if (realRoot && cwd && !isInside(realRoot, cwd)) {
      ctx.error(['cwd'], problems.PATH_OUTSIDE_ROOT(config.cwd ?? '.', realRoot));
    }
    const [program, ...rest] = config.command as [string, ...string[]];
    const resolved = realRoot ? resolveProgram(program, ctx.baseDir, realRoot) : undefined;
    if (resolved && 'reason' in resolved) {
      ctx.error(['command', 0], problems.SHELL_PROGRAM_NOT_FOUND(program, resolved.reason));
    }
    const argv = compileArgv(rest, declared, ['command'], ctx, 1);
    const env = Object.entries(config.env ?? {}).map(
      ([name, value]) => [name, compileString(value, declared, ['env', name], ctx)] as const,
    );
    const stdin =
      config.stdin === undefined ? undefined : compileString(config.stdin, declared, ['stdin'], ctx);
    const progress = config.progress && progressPattern(config.progress.pattern);
    if (progress === null) {
      ctx.error(
        ['progress', 'pattern'],
        problems.MANIFEST_INVALID_VALUE('a regular expression with a named group (?<progress>…) is expected'),
      );
    }
    if (failed() || !realRoot || !cwd || !argv || !resolved || !('file' in resolved)) return undefined;

    const file = resolved.file;
    const timeoutMs = config.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS;
    const maxOutputBytes = config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    const passthrough = config.envPassthrough ?? DEFAULT_PASSTHROUGH;
    const wantsJson = config.outputSchema !== undefined;
    const logStderr = config.logStderr ?? true;
    const secrets = redactor(secretsOfEnv(config.env));
    const { redact } = secrets;

    return {
      annotations: { openWorldHint: false },
      defaultConcurrency: DEFAULT_MAX_CONCURRENCY,
      defaultTaskSupport: 'optional',
      async run(args, call): Promise<ToolResult> {
        const rendered = argv.render(args);
        if ('refused' in rendered) return errorResult(`Refused to run ${program}: ${rendered.refused}.`);
        const folder = cwdTemplate ? await renderedFolder(cwdTemplate, args, ctx.baseDir, realRoot) : cwd;
        if (typeof folder !== 'string') return errorResult(`Refused to run ${program}: ${folder.refused}.`);
        if (!cwdTemplate && (await realpathInside(realRoot, cwd)) !== cwd) {
          return errorResult(`Refused to run ${program}: its working folder moved outside ${realRoot}.`);
        }
        const environment: Record<string, string> = {};
        for (const name of passthrough) {
          const value = process.env[name];
          if (value !== undefined) environment[name] = value;
        }
        for (const [name, node] of env) {
          const value = text(node!, args);
          if (value !== undefined) environment[name] = value;
        }
        const input = stdin && text(stdin, args);
        const slot = await acquire([programs], call);
        if ('refused' in slot) {
          if (slot.refused === 'cancelled') return errorResult(`${program} was cancelled before it started.`);
          return errorResult(
            `${program} did not start: ${PROGRAMS_LIMIT} programs of shell tools are running and none finished within ${QUEUE_WAIT_MS} ms. This is temporary: retry the call shortly.`,
          );
        }
        let logLines = 0;
        let logBytes = 0;
        const logLine = (line: string) => {
          if (!line || logLines > MAX_LOG_LINES) return;
          const shown = redact(line);
          logBytes += Buffer.byteLength(shown);
          if (++logLines > MAX_LOG_LINES || logBytes > MAX_LOG_BYTES) {
            logLines = MAX_LOG_LINES + 1;
            call.log(
              'info',
              `[further stderr lines of ${program} are not sent: at most ${MAX_LOG_LINES} lines and ${MAX_LOG_BYTES} bytes per call]`,
              ctx.name,
            );
            return;
          }
          call.log('info', shown, ctx.name);
        };
        const outcome = await runProcess({
          file,
          args: rendered.argv,
          cwd: folder,
          env: environment,
          ...(input !== undefined && { stdin: input }),
          timeoutMs,
          maxOutputBytes,
          signal: call.signal,
          ...(progress && {
            onStdoutLine: (line: string) => {
              const groups = progress.exec(line)?.groups;
              const value = Number(groups?.progress);
              if (!groups || !Number.isFinite(value)) return;
              const total = Number(groups.total);
              const message = groups.message ? redact(groups.message) : undefined;
              call.progress(value, Number.isFinite(total) ? total : undefined, message);
            },
          }),
          ...(logStderr && { onStderrLine: logLine }),
        }).finally(slot.release);
        return outcomeResult(program, outcome, timeoutMs, maxOutputBytes, wantsJson, secrets);
      },
    };
  },
};

function text(node: ValueNode, args: Readonly<Record<string, unknown>>): string | undefined {
  const value = evaluateTree(node, args);
  if (value === ABSENT) return undefined;
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** The real folder a templated cwd names for these values, if it exists inside `realRoot`. */
async function renderedFolder(
  node: ValueNode,
  args: Readonly<Record<string, unknown>>,
  baseDir: string,
  realRoot: string,
): Promise<string | { refused: string }> {
  const path = text(node, args);
  if (!path)
    return { refused: 'its working folder is empty for these values (did the client share a root?)' };
  const real = await realpathInside(realRoot, resolve(baseDir, path));
  if (real === undefined)
    return { refused: `its working folder ${JSON.stringify(path)} does not exist or is outside ${realRoot}` };
  const isFolder = await stat(real).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isFolder ? real : { refused: `its working folder ${JSON.stringify(path)} is not a folder` };
}

function realFolder(path: string, at: EntryPath, ctx: KindContext): string | undefined {
  const full = resolve(ctx.baseDir, path);
  let real: string;
  try {
    real = realpathSync(full);
  } catch {
    ctx.error(at, problems.PATH_NOT_FOUND(full));
    return undefined;
  }
  if (statSync(real).isDirectory()) return real;
  ctx.error(at, problems.MANIFEST_INVALID_VALUE(`${JSON.stringify(full)} is not a folder`));
  return undefined;
}
