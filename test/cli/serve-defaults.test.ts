/**
 * `mcp-run <manifest>.yaml` with no flags is served without the option parser (main.ts), with
 * SERVE_DEFAULTS. Those must be exactly what the parser gives the serve command when no flag is
 * given: every serve option's default is in SERVE_DEFAULTS with the same value, and nothing else is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandLine } from '../../src/cli/program.js';
import { SERVE_DEFAULTS } from '../../src/cli/serve-defaults.js';

test('SERVE_DEFAULTS are the option parser defaults of the serve command', () => {
  const parserDefaults: Record<string, unknown> = {};
  for (const option of commandLine().options) {
    // --no-watch: the option's own default is true (watching), as commander gives it.
    const value = option.negate ? (option.defaultValue ?? true) : option.defaultValue;
    if (value !== undefined) parserDefaults[option.attributeName()] = value;
  }
  assert.deepEqual(parserDefaults, { ...SERVE_DEFAULTS });
});
