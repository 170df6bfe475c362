/**
 * A SKILL.md rendered as DOM built from its text: headings, paragraphs, lists, block quotes, code
 * blocks, and inline code, strong and emphasis. A skill comes from a server, so its text is data:
 * every piece becomes a text node (never HTML: a `<script>` in it shows as text), and a link shows
 * as its text and its address, not as something to click.
 */
import type { ComponentChildren } from 'preact';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'quote'; text: string }
  | { kind: 'code'; info: string; text: string }
  | { kind: 'rule' };

/** The frontmatter (between the first two `---` lines) and the body after it. */
export function splitFrontmatter(text: string): { frontmatter?: string; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  return match ? { frontmatter: match[1]!, body: text.slice(match[0].length) } : { body: text };
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const BULLET = /^ {0,3}([-*+])[ \t]+(.*)$/;
const ORDERED = /^ {0,3}(\d{1,9})[.)][ \t]+(.*)$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}>[ \t]?(.*)$/;

/** The blocks of a Markdown text, line by line (CommonMark's common cases, not all of it). */
export function parseBlocks(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const indent = line.length - line.trimStart().length;
      const body: string[] = [];
      i++;
      while (i < lines.length) {
        const close = lines[i]!.trim();
        if (close.startsWith(marker[0]!.repeat(marker.length)) && /^(`+|~+)$/.test(close)) break;
        body.push(stripIndent(lines[i]!, indent));
        i++;
      }
      i++;
      blocks.push({ kind: 'code', info: fence[2]!.trim(), text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1]!.length, text: heading[2] ?? '' });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ kind: 'rule' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) quoted.push(QUOTE.exec(lines[i++]!)![1]!);
      blocks.push({ kind: 'quote', text: quoted.join(' ') });
      continue;
    }
    const bullet = BULLET.exec(line);
    const ordered = ORDERED.exec(line);
    if (bullet || ordered) {
      i = parseList(lines, i, ordered !== null, blocks);
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !startsBlock(lines[i]!))
      paragraph.push(lines[i++]!.trim());
    blocks.push({ kind: 'paragraph', text: paragraph.join(' ') });
  }
  return blocks;
}

function startsBlock(line: string): boolean {
  return [FENCE, HEADING, BULLET, ORDERED, RULE, QUOTE].some((re) => re.test(line));
}

function stripIndent(line: string, indent: number): string {
  let n = 0;
  while (n < indent && line[n] === ' ') n++;
  return line.slice(n);
}

/**
 * One list: its items, each the text of its first line and its continuation lines. A code block
 * inside an item (indented) is pulled out after the list, so its text is kept whole.
 */
function parseList(lines: string[], start: number, ordered: boolean, blocks: Block[]): number {
  const marker = ordered ? ORDERED : BULLET;
  const items: string[] = [];
  const nested: Block[] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i]!;
    const item = marker.exec(line);
    if (item) {
      items.push(item[2]!.trim());
      i++;
      continue;
    }
    if (line.trim() === '') {
      // A blank line ends the list unless an indented line (the item's) follows.
      let next = i + 1;
      while (next < lines.length && lines[next]!.trim() === '') next++;
      if (next < lines.length && /^ {2,}\S/.test(lines[next]!) && items.length > 0) {
        i = next;
        continue;
      }
      break;
    }
    if (/^ {2,}\S/.test(line) && items.length > 0) {
      const inner = line.trimStart();
      const fence = FENCE.exec(inner);
      if (fence) {
        const [code, after] = innerFence(lines, i, line.length - inner.length);
        nested.push(code);
        i = after;
        continue;
      }
      items[items.length - 1] += ` ${inner}`;
      i++;
      continue;
    }
    if (startsBlock(line)) break;
    items[items.length - 1] += ` ${line.trim()}`;
    i++;
  }
  blocks.push({ kind: 'list', ordered, items }, ...nested);
  return i;
}

function innerFence(lines: string[], start: number, indent: number): [Block, number] {
  const open = FENCE.exec(lines[start]!.trimStart())!;
  const marker = open[1]!;
  const body: string[] = [];
  let i = start + 1;
  while (i < lines.length) {
    const close = lines[i]!.trim();
    if (close.startsWith(marker[0]!.repeat(marker.length)) && /^(`+|~+)$/.test(close)) break;
    body.push(stripIndent(lines[i]!, indent));
    i++;
  }
  return [{ kind: 'code', info: open[2]!.trim(), text: body.join('\n') }, i + 1];
}

/** Inline markup: code spans, strong, emphasis, links (as text), backslash escapes. */
export function renderInline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push(plain);
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1]!)) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(text.slice(i))![0];
      const end = text.indexOf(run, i + run.length);
      if (end > 0) {
        flush();
        const inner = text.slice(i + run.length, end);
        out.push(
          <code>
            {inner.length > 2 && inner.startsWith(' ') && inner.endsWith(' ') ? inner.slice(1, -1) : inner}
          </code>,
        );
        i = end + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    if (c === '*' || c === '_') {
      const delimiter = text[i + 1] === c ? c + c : c;
      const end = closer(text, delimiter, i);
      if (end > 0) {
        flush();
        const inner = renderInline(text.slice(i + delimiter.length, end));
        out.push(delimiter.length === 2 ? <strong>{inner}</strong> : <em>{inner}</em>);
        i = end + delimiter.length;
        continue;
      }
      plain += delimiter;
      i += delimiter.length;
      continue;
    }
    if (c === '[') {
      const link = /^\[([^\]]*)\]\(([^)\s]*)\)/.exec(text.slice(i));
      if (link) {
        flush();
        out.push(
          <span class="link" title={link[2]}>
            {renderInline(link[1]!)} <span class="muted">({link[2]})</span>
          </span>,
        );
        i += link[0].length;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/**
 * Where the emphasis opened at `start` closes, or -1. Neither side may touch a space on its inner
 * side, and `_` neither opens nor closes inside a word (snake_case stays as it is).
 */
function closer(text: string, delimiter: string, start: number): number {
  const word = /[\p{L}\p{N}]/u;
  const open = start + delimiter.length;
  if (open >= text.length || /\s/.test(text[open]!)) return -1;
  if (delimiter[0] === '_' && word.test(text[start - 1] ?? '')) return -1;
  for (let end = text.indexOf(delimiter, open + 1); end > 0; end = text.indexOf(delimiter, end + 1)) {
    if (/\s/.test(text[end - 1]!)) continue;
    if (delimiter[0] === '_' && word.test(text[end + delimiter.length] ?? '')) continue;
    // A longer run (`***`) is not this delimiter's end.
    if (text[end + delimiter.length] === delimiter[0] && delimiter.length === 1) continue;
    return end;
  }
  return -1;
}

export function Markdown(props: { readonly text: string }) {
  return (
    <div class="markdown" data-testid="markdown">
      {parseBlocks(props.text).map((block, i) => renderBlock(block, i))}
    </div>
  );
}

function renderBlock(block: Block, key: number) {
  switch (block.kind) {
    case 'heading': {
      // Inside the page the skill's headings sit under the view's own h2.
      const Tag = (['h3', 'h4', 'h5', 'h6', 'h6', 'h6'] as const)[block.level - 1]!;
      return <Tag key={key}>{renderInline(block.text)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{renderInline(block.text)}</p>;
    case 'quote':
      return <blockquote key={key}>{renderInline(block.text)}</blockquote>;
    case 'rule':
      return <hr key={key} />;
    case 'code':
      return (
        <pre key={key} class="code" data-lang={block.info || undefined}>
          <code>{block.text}</code>
        </pre>
      );
    case 'list': {
      const items = block.items.map((item, i) => <li key={i}>{renderInline(item)}</li>);
      return block.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
  }
}
