/**
 * Tool kind `shell`: what validation, the manifest schema and the docs need (its name,
 * description and fields), without the code that compiles it, so a manifest that does not use it
 * never loads that code (../builtin.ts). The kind itself: ./tool.ts.
 */

import type { KindInfo } from '../contract/kinds.js';

const ENV_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

export const DEFAULT_SHELL_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** stderr lines sent as log messages per call; past either cap, one notice and nothing more. */
export const MAX_LOG_LINES = 100;
export const MAX_LOG_BYTES = 64 * 1024;

export const shellToolInfo: KindInfo = {
  kind: 'shell',
  description: 'Runs one program with an argument vector (no shell), with a time limit and output caps.',
  configSchema: {
    type: 'object',
    properties: {
      command: {
        type: 'array',
        minItems: 1,
        items: { type: 'string' },
        description:
          'The program and its arguments, e.g. [git, log, -n, "{{count}}"]. Each element is rendered alone; no shell.',
      },
      cwd: {
        type: 'string',
        description:
          'Working folder, relative to the manifest folder (default: it); may be a template such as "{{root}}", checked inside root on every call.',
      },
      root: {
        type: 'string',
        description:
          'The folder that cwd and a program path must stay inside (default: the manifest folder).',
      },
      env: {
        type: 'object',
        description:
          'Extra environment variables; values may use {{name}}. Their literal text (4 characters or more) is treated as secret and shown as *** in everything the tool returns.',
        propertyNames: { pattern: ENV_NAME },
        additionalProperties: { type: 'string' },
      },
      envPassthrough: {
        type: 'array',
        items: { type: 'string', pattern: ENV_NAME },
        description: "Variables copied from mcp-run's own environment (default: PATH, HOME, LANG).",
      },
      stdin: { type: 'string', description: 'Text written to the standard input (a template).' },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_SHELL_TIMEOUT_MS,
        description: 'Time limit; then SIGTERM to every process the call started, SIGKILL 2 s later.',
      },
      maxOutputBytes: {
        type: 'integer',
        minimum: 1,
        default: DEFAULT_MAX_OUTPUT_BYTES,
        description:
          'Cap of stdout and of stderr each; the rest is read but not kept, and the result says so.',
      },
      progress: {
        type: 'object',
        description: 'Turns stdout lines into progress notifications.',
        properties: {
          pattern: {
            type: 'string',
            description:
              'A regular expression with the named group progress, optionally total and message, e.g. "^(?<progress>\\\\d+)/(?<total>\\\\d+)".',
          },
        },
        required: ['pattern'],
        additionalProperties: false,
      },
      logStderr: {
        type: 'boolean',
        default: true,
        description: `Send each stderr line to the client as an info log message (at most ${MAX_LOG_LINES} lines and ${MAX_LOG_BYTES} bytes per call).`,
      },
    },
    required: ['command'],
    additionalProperties: false,
  },
};
