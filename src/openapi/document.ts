/**
 * The generated parts as a YAML document a person can read and edit: a header saying where it came
 * from and which environment variables it reads, one commented entry per tool (its route and what
 * was left out), and short maps written on one line (`{ type: integer, format: int32 }`).
 */
import { Document, isMap, isScalar, type Node, type Pair, visit, YAMLSeq } from 'yaml';
import type { Generated, GeneratedTool } from './generate.js';
import type { Obj } from './load.js';

/** Maps and lists whose one-line form is at most this long are written on one line. */
const FLOW_WIDTH = 72;
const BLOCK_KEYS = ['input', 'outputSchema'];

const STRINGIFY = { lineWidth: 100, minContentWidth: 40 } as const;

/**
 * The document as text, in the style the repository's formatter (biome) gives YAML: `{ a: 1 }` but
 * `[a, b]`. The yaml library pads both kinds of flow collection alike, so flow lists are told
 * otherwise one by one; without that, every merge would re-space the lists of the whole file.
 */
export function toText(doc: Document): string {
  visit(doc, {
    Seq(_, seq) {
      if (!seq.flow) return;
      const plain = YAMLSeq.prototype.toString;
      seq.toString = (ctx, onComment, onChompKeep) =>
        plain.call(seq, ctx && { ...ctx, flowCollectionPadding: '' }, onComment, onChompKeep);
    },
  });
  return doc.toString(STRINGIFY);
}

export interface HeaderInfo {
  /** `# yaml-language-server: $schema=…` without the `#`. */
  readonly schemaLine: string;
  /** How the import was run, e.g. `mcp-run import openapi petstore.yaml -o mcp.yaml`. */
  readonly command: string;
  /** The document, as the reader should find it (relative to the manifest). */
  readonly specLabel: string;
}

/**
 * The manifest: server, source, tools and the shared schemas they reference. With `split`, the
 * tools are left out here and this file includes the files that hold them (see `renderPart`).
 */
export function renderManifest(gen: Generated, header: HeaderInfo, split?: readonly string[]): Document {
  const doc = new Document({});
  doc.commentBefore = [` ${header.schemaLine}`, '', ...headerLines(gen, header).map((l) => ` ${l}`)].join(
    '\n',
  );
  const top = doc.contents;
  if (!isMap(top)) return doc;
  const sections: [string, Node][] = [
    ['server', styled(doc, gen.server)],
    ...(split ? [['include', styled(doc, split)] as [string, Node]] : []),
    ['sources', doc.createNode({})],
    ...(split ? [] : [['tools', doc.createNode({})] as [string, Node]]),
  ];
  for (const [section, value] of sections) {
    const pair = doc.createPair(section, null);
    pair.value = value;
    if (top.items.length > 0 && isScalar(pair.key)) pair.key.spaceBefore = true;
    top.items.push(pair);
  }
  addEntry(doc, 'sources', sourcePair(doc, gen));
  if (!split) for (const tool of gen.tools) addEntry(doc, 'tools', toolPair(doc, tool));
  addSchemas(doc, gen.schemas);
  return doc;
}

/** One file of a `--split` import: some of the tools, included by the manifest. */
export function renderPart(tools: readonly GeneratedTool[], comment: string): Document {
  const doc = new Document({});
  doc.commentBefore = ` ${comment}`;
  for (const tool of tools) addEntry(doc, 'tools', toolPair(doc, tool));
  return doc;
}

/** The shared schemas, last: the tools come first, what they reference after them. */
function addSchemas(doc: Document, schemas: Readonly<Record<string, Obj>>): void {
  const names = Object.keys(schemas);
  if (names.length === 0) return;
  for (const [i, name] of names.entries()) {
    const pair = schemaPair(doc, name, schemas[name]!);
    if (i === 0 && isScalar(pair.key)) {
      pair.key.commentBefore = commentText([
        "The API's schemas, written once; tools reference them as $ref: '#/schemas/Name'.",
      ]);
    }
    addEntry(doc, 'schemas', pair, false);
  }
}

function headerLines(gen: Generated, header: HeaderInfo): string[] {
  const lines = [
    `${gen.title}${gen.apiVersion ? ` ${gen.apiVersion}` : ''}, imported from ${header.specLabel} (${gen.format}) by`,
    `  ${header.command}`,
    '',
    'Environment:',
    ...gen.source.env.map(([name, meaning]) => `  ${name}: ${meaning}`),
    '',
    'Edit freely. Running the import again with `-o <this file> --merge` updates what you did not',
    'change and keeps what you did (docs/import-openapi.md).',
  ];
  if (gen.skipped.length > 0) lines.push('', 'Not imported:', ...gen.skipped.map((s) => `  ${s}`));
  return lines;
}

export function sourcePair(doc: Document, gen: Generated): Pair {
  return entryPair(doc, gen.sourceName, gen.source.config, gen.source.notes);
}

/** A shared schema entry. */
export function schemaPair(doc: Document, name: string, schema: Obj): Pair {
  const pair = doc.createPair(name, null);
  pair.value = styled(doc, schema);
  return pair;
}

/** A tool entry; its route and notes go in a comment above its name. */
export function toolPair(doc: Document, tool: GeneratedTool): Pair {
  const label = tool.operationId ? `${tool.route} (${tool.operationId})` : tool.route;
  return entryPair(doc, tool.name, tool.config, [label, ...tool.notes]);
}

function entryPair(doc: Document, name: string, config: Obj, notes: readonly string[]): Pair {
  const pair = doc.createPair(name, null);
  pair.value = styled(doc, config);
  if (notes.length > 0 && isScalar(pair.key)) pair.key.commentBefore = commentText(notes);
  return pair;
}

/** Adds an entry at the end of a section (creating the section when it is missing or empty). */
export function addEntry(doc: Document, section: string, pair: Pair, spaced = true): void {
  let map = doc.get(section, true);
  if (!isMap(map)) {
    map = doc.createNode({});
    const top = doc.contents;
    if (isMap(top) && !doc.has(section)) {
      // A new section at the end, a blank line before it as between the others.
      const added = doc.createPair(section, map);
      if (top.items.length > 0 && isScalar(added.key)) added.key.spaceBefore = true;
      top.items.push(added);
    } else doc.set(section, map);
  }
  if (isMap(map)) {
    if (spaced && map.items.length > 0 && isScalar(pair.key)) pair.key.spaceBefore = true;
    map.items.push(pair);
  }
}

/** Lines of comment text as the yaml library wants them (each line after its `#`). */
export const commentText = (lines: readonly string[]): string => lines.map((l) => ` ${l}`).join('\n');

/** `value` as a node, short maps and lists on one line. */
export function styled(doc: Document, value: unknown): Node {
  const node = doc.createNode(value) as Node;
  visit(node, {
    Map(_, map) {
      if (map.items.length > 0 && oneLineWidth(map.toJSON()) <= FLOW_WIDTH && !hasLongText(map.toJSON()))
        map.flow = true;
    },
    Seq(_, seq) {
      const items = seq.toJSON();
      if (
        seq.items.every((item) => isScalar(item)) &&
        oneLineWidth(items) <= FLOW_WIDTH &&
        !hasLongText(items)
      )
        seq.flow = true;
    },
  });
  // The top of an entry, its input and its outputSchema stay block maps, however short, so they
  // read like the hand-written ones: one argument per line.
  if (isMap(node)) {
    node.flow = false;
    for (const key of BLOCK_KEYS) {
      const child = node.get(key, true);
      if (isMap(child)) child.flow = false;
    }
  }
  return node;
}

const oneLineWidth = (value: unknown): number => JSON.stringify(value).length;

/** Multi-line text reads better as a block scalar than squeezed into a one-line map. */
const hasLongText = (value: unknown): boolean =>
  typeof value === 'string'
    ? value.includes('\n')
    : Array.isArray(value)
      ? value.some(hasLongText)
      : typeof value === 'object' && value !== null && Object.values(value as Obj).some(hasLongText);
