/** Fixtures for the tests that watch what a real `mcp-run` process loads. */

/** A manifest of one `content` tool, `greet`, with one string argument. */
export const GREET_MANIFEST = [
  'tools:',
  '  greet:',
  '    kind: content',
  '    input: { name: { type: string } }',
  '    content: [{ text: "Hello, {{name}}!" }]',
  '',
].join('\n');

/**
 * A `--require` preload: appends every package required to the file MODULES_OUT names, and at exit
 * node's own modules loaded (`process.moduleLoadList`).
 */
export const REQUIRE_LOG_PRELOAD = [
  "const { appendFileSync } = require('node:fs');",
  "const Module = require('node:module');",
  'const load = Module._load;',
  "Module._load = function (request, ...rest) { appendFileSync(process.env.MODULES_OUT, request + '\\n'); return load.call(this, request, ...rest); };",
  "process.on('exit', () => appendFileSync(process.env.MODULES_OUT, process.moduleLoadList.join('\\n') + '\\n'));",
  '',
].join('\n');
