/**
 * JavaScript source of the build as printable ASCII (and tabs and newlines): the CLI bundle
 * (scripts/bundle-cli.mjs) and the precompiled validators (manifest/precompile.ts). One character
 * past ASCII makes V8 hold the whole source, which it keeps for lazy compiling, as a two-byte
 * string: twice the memory, and a slower read at every start. esbuild escapes strings but keeps
 * comments (and some regular expressions) as written; ajv writes schema texts as they are. A
 * \uXXXX escape means the same character in a string, a template or a regular expression, and
 * nothing in a comment.
 */
export function asciiSource(code: string): string {
  return code.replace(/[^\t\n\r -~]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
