/**
 * Human-readable renderings of protocol results for the CLI, and the one rule for text from
 * outside mcp-run shown to a person (`escapeControls`). `--json` and `--raw` print JSON untouched
 * (`mcp-run audit --json` writes controls as `\uXXXX`: escapeJsonControls).
 */
// biome-ignore lint/suspicious/noExplicitAny: protocol results are free-form JSON, read field by field for printing
type Json = Record<string, any>;

/**
 * Control characters a terminal acts on (ESC sequences that move the cursor, clear the screen,
 * retitle the window or plant an OSC 8 link; BEL; a CR that overwrites the line; C1 controls such as
 * U+009B, a one-character CSI) and the bidi overrides and isolates that reorder what is read. Tab,
 * newline and a CR before a newline stay: they only lay text out.
 */
export { escapeControls } from '../util/escape-controls.js';

/**
 * A line of JSON with the characters a terminal acts on written as `\uXXXX`: still valid JSON, the
 * same value. JSON.stringify leaves C1 controls (U+0080–U+009F), DEL and the bidi overrides as they
 * are, and a record's strings came from callers. Tab, newline and CR stay (JSON allows them only
 * between tokens, where they only lay text out).
 */
export function escapeJsonControls(line: string): string {
  return line.replace(JSON_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const JSON_CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export interface Lists {
  readonly tools: Json[];
  readonly resources: Json[];
  readonly resourceTemplates: Json[];
  readonly prompts: Json[];
}

/** Content blocks as a terminal shows them: text as is, binary as a one-line summary. */
export function formatContent(blocks: readonly Json[]): string {
  return blocks
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text;
        case 'image':
        case 'audio':
          return `[${block.type} ${block.mimeType}, ${Buffer.byteLength(block.data ?? '', 'base64')} bytes]`;
        case 'resource': {
          const r = block.resource ?? {};
          return r.text !== undefined
            ? `[resource ${r.uri}]\n${r.text}`
            : `[resource ${r.uri}, ${r.mimeType ?? 'binary'}]`;
        }
        case 'resource_link':
          return `[link ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
        default:
          return JSON.stringify(block);
      }
    })
    .join('\n');
}

/**
 * A tool result for a person: the structured result's JSON echo (sent for clients that read only
 * text) is left out when other content already shows the result.
 */
export function formatToolResult(result: Json): string {
  const blocks = (result.content ?? []) as Json[];
  if (result.structuredContent === undefined || blocks.length < 2) return formatContent(blocks);
  const echo = JSON.stringify(result.structuredContent);
  return formatContent(blocks.filter((b) => !(b.type === 'text' && sameJson(b.text, echo))));
}

function sameJson(text: unknown, json: string): boolean {
  if (typeof text !== 'string') return false;
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

export function formatLists(lists: Lists): string {
  const out: string[] = [];
  const section = (title: string, items: Json[], line: (item: Json) => string[]) => {
    out.push(`${title} (${items.length})`);
    // A multi-line description (YAML `|`) keeps its indentation on every line.
    const lines = (item: Json) => line(item).flatMap((l) => l.trimEnd().split('\n'));
    for (const item of items) out.push(...lines(item).map((l, i) => (i === 0 ? `  ${l}` : `      ${l}`)));
    out.push('');
  };
  section('Tools', lists.tools, (t) => [
    `${t.name}${t.title ? ` — ${t.title}` : ''}`,
    ...(t.description ? [t.description] : []),
    ...argumentLines(t.inputSchema),
  ]);
  section('Resources', lists.resources, (r) => [
    `${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ''}`,
    ...(r.description ? [r.description] : []),
  ]);
  section('Resource templates', lists.resourceTemplates, (t) => [
    `${t.uriTemplate}  ${t.name}`,
    ...(t.description ? [t.description] : []),
  ]);
  section('Prompts', lists.prompts, (p) => [
    `${p.name}(${(p.arguments ?? []).map((a: Json) => `${a.name}${a.required ? '*' : ''}`).join(', ')})`,
    ...(p.description ? [p.description] : []),
  ]);
  return `${out.join('\n')}\n`;
}

/** "limit: integer = 20 — How many orders at most"; a `*` marks a required argument. */
function argumentLines(schema: Json | undefined): string[] {
  const required = new Set<string>(schema?.required ?? []);
  return Object.entries((schema?.properties ?? {}) as Record<string, Json>).map(([name, p]) => {
    const type = p.enum ? p.enum.map((v: unknown) => JSON.stringify(v)).join('|') : (p.type ?? 'any');
    const fallback = p.default === undefined ? '' : ` = ${JSON.stringify(p.default)}`;
    return `${name}${required.has(name) ? '*' : ''}: ${type}${fallback}${p.description ? ` — ${p.description}` : ''}`;
  });
}
