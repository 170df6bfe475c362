/** Text helpers for diagnostics: dotted paths and rollup-style code frames. */
import type { ManifestPath } from './types.js';

const PLAIN_SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * `tools.find_orders.input.limit`, `prompts.p.messages[0].text`. Names may contain dots, so a key
 * that is not a plain identifier is bracketed (`tools["a.b"].sql`) to keep the path unambiguous.
 */
export function dottedPath(path: ManifestPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (PLAIN_SEGMENT.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

const CONTEXT_LINES = 2;

/**
 * Up to two lines before the error line, the line itself marked with `>`, and a caret under the
 * 1-based column. No leading indentation: `formatDiagnostic` indents the frame.
 */
export function codeFrame(text: string, line: number, col: number): string {
  const lines = text.split(/\r\n|\r|\n/);
  const target = Math.min(Math.max(line, 1), lines.length);
  const first = Math.max(1, target - CONTEXT_LINES);
  const width = String(target).length;
  const out: string[] = [];
  for (let n = first; n <= target; n++) {
    const mark = n === target ? '>' : ' ';
    out.push(`${mark} ${String(n).padStart(width)} | ${lines[n - 1] ?? ''}`.trimEnd());
  }
  // Keep tabs in the caret's indentation so the caret lines up however the terminal renders them.
  const before = (lines[target - 1] ?? '')
    .slice(0, Math.max(col - 1, 0))
    .replace(/[^\t]/g, ' ')
    .padEnd(Math.max(col - 1, 0));
  out.push(`  ${' '.repeat(width)} | ${before}^`);
  return out.join('\n');
}
