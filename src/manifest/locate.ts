/**
 * Maps manifest paths back to positions in the YAML text. The text is kept so that a problem found
 * much later, by the compiler, can still point at its line; its document (with positions) is the
 * one the parser made, or, after the fast path, is made on the first position asked for.
 */
import type { Alias, Document, LineCounter, Node } from 'yaml';
import type { ManifestPath } from './types.js';
import { yamlLib } from './yaml-lib.js';

/** A document with positions and the line starts of its text. */
export interface Positioned {
  readonly doc: Document;
  readonly lines: LineCounter;
}

export interface Position {
  readonly line: number;
  readonly col: number;
}

type Ranged = { range?: [number, number, number] | null };

export class SourceMap {
  /** What each alias points at, found in one walk on first use (`Alias.resolve` walks per call). */
  private targets: Map<Alias, unknown> | undefined;

  constructor(
    private readonly text: string,
    private positioned?: Positioned,
  ) {}

  /** The document, parsed again with positions the first time one is needed. */
  private get parsed(): Positioned {
    if (!this.positioned) {
      const { LineCounter, parseDocument } = yamlLib();
      const lines = new LineCounter();
      // The same options as parse.ts: the same nodes at the same offsets.
      const doc = parseDocument(this.text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
      this.positioned = { doc, lines };
    }
    return this.positioned;
  }

  private get doc(): Document {
    return this.parsed.doc;
  }

  positionOf(offset: number): Position {
    return this.parsed.lines.linePos(offset);
  }

  /**
   * Where `path` is in the text: its key or its value. When the path does not exist (a missing
   * field, a default filled in), the deepest part that does exist is used, key first: the caret then
   * lands on the entry that lacks the field.
   */
  position(path: ManifestPath, at: 'key' | 'value' = 'value', needle?: string): Position | undefined {
    const { isMap, isScalar, isSeq } = yamlLib();
    let node: unknown = this.doc.contents;
    let key: unknown;
    for (const seg of path) {
      node = this.deref(node);
      if (isMap(node)) {
        const pair = node.items.find((p) => keyText(p.key) === String(seg));
        if (!pair) return this.start(key) ?? this.start(node);
        key = pair.key;
        node = pair.value;
      } else if (isSeq(node) && /^\d+$/.test(String(seg))) {
        const index = Number(seg);
        if (index >= node.items.length) return this.start(key) ?? this.start(node);
        key = undefined;
        node = node.items[index];
      } else {
        return this.start(key) ?? this.start(node);
      }
    }
    if (at === 'key' && key) return this.start(key);
    if (needle && isScalar(node) && node.range) {
      const source = this.text.slice(node.range[0], node.range[1]);
      const index = source.indexOf(needle);
      if (index >= 0) return this.positionOf(node.range[0] + index);
    }
    // An empty value (`kind:`) has a zero-width range after the colon; the key is a better target.
    if (isScalar(node) && node.range && node.range[0] === node.range[1] && key) return this.start(key);
    return this.start(node) ?? this.start(key) ?? (path.length === 0 ? { line: 1, col: 1 } : undefined);
  }

  /** The key path of the mapping key that starts at `offset` (to name a duplicate key). */
  keyPathAt(offset: number): (string | number)[] | undefined {
    const { isMap, isSeq } = yamlLib();
    const search = (node: unknown, path: (string | number)[]): (string | number)[] | undefined => {
      if (isMap(node)) {
        for (const pair of node.items) {
          const k = keyText(pair.key);
          if ((pair.key as Ranged | null)?.range?.[0] === offset) return [...path, k];
          const found = search(pair.value, [...path, k]);
          if (found) return found;
        }
      } else if (isSeq(node)) {
        for (const [i, item] of node.items.entries()) {
          const found = search(item, [...path, i]);
          if (found) return found;
        }
      }
      return undefined;
    };
    return search(this.doc.contents, []);
  }

  private deref(node: unknown): unknown {
    // Walk into an anchor's content: the problem is in the text the alias points at.
    const { isAlias, visit } = yamlLib();
    if (!isAlias(node)) return node;
    if (this.targets === undefined) {
      // The same rule as `Alias.resolve`: the last node with the anchor before the alias.
      const targets = new Map<Alias, unknown>();
      const anchors = new Map<string, unknown>();
      visit(this.doc, {
        Node(_, n) {
          if (isAlias(n)) targets.set(n, anchors.get(n.source));
          else if (n.anchor) anchors.set(n.anchor, n);
        },
      });
      this.targets = targets;
    }
    return this.targets.get(node);
  }

  private start(node: unknown): Position | undefined {
    if (yamlLib().isPair(node)) return this.start(node.key);
    const range = (node as Ranged | null | undefined)?.range;
    return range ? this.positionOf(range[0]) : undefined;
  }
}

function keyText(key: unknown): string {
  if (yamlLib().isScalar(key)) return String(key.value);
  return String((key as Node | null)?.toString() ?? '');
}
