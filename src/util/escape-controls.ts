/**
 * Text from outside mcp-run (a server, a tool's upstream, an imported document) made safe to show
 * to a person or to write into a log line: each control character and bidi override written
 * escaped. The CLI's human output (cli/print.ts) and the `mcp` source's upstream stderr and logs use it.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROLS = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text a server, a tool's upstream or an imported document wrote, as a person sees it:
 * each control character and bidi override printed escaped (`\x1b`, `\u202e`), so it is seen, not
 * obeyed. Every human output of a command that prints such text goes through here.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x80
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
