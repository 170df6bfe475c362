/** Mirrored tools (catalog/mirror.ts): what each entry shape becomes, what a call answers, and the name checks. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCatalog } from '../../src/catalog/compile.js';
import { ManifestError } from '../../src/errors.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifest } from '../../src/manifest/load.js';
import { scopesNeeded, withMirrorScopes } from '../../src/transports/http/oauth/scopes.js';
import { callContext, tempDir } from '../kinds/context.js';

// A 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

async function catalogOf(yaml: string) {
  const dir = tempDir();
  writeFileSync(join(dir, 'handbook.md'), '# Handbook\nBe kind.');
  writeFileSync(join(dir, 'logo.png'), PNG);
  const file = join(dir, 'mcp.yaml');
  writeFileSync(file, yaml);
  const registry = builtinKinds();
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'));
}

const MANIFEST = `
server: { mirror: { resources: true } }
tools:
  hello: { kind: content, description: Says hello., content: [{ text: hello }] }
resources:
  handbook: { kind: file, path: handbook.md, uri: "docs://handbook", description: The support handbook. }
  logo: { kind: file, path: logo.png, uri: "img://logo" }
  greeting:
    kind: text
    uri: "greet://{lang}/{name}"
    text: "{{lang}}: hello {{name}}"
    variables:
      lang: { description: The language, enum: [en, fr] }
      name: { description: Who is greeted }
  hidden: { kind: text, uri: "x://hidden", text: no, mirror: false }
prompts:
  review:
    description: Review a change.
    arguments:
      change: { description: The change, required: true }
      tone: { enum: [brief, detailed] }
    messages:
      - text: "Review {{change}} ({{tone}})."
      - role: assistant
        text: Sure.
    mirror: { name: review_prompt }
  plain:
    messages: [{ text: Hi. }]
`;

const text = (result: { content: readonly { type: string }[] }) =>
  result.content.map((block) => (block as { text?: string }).text).join('\n');

describe('mirrored tools', () => {
  test('each mirrored entry is a tool after the declared ones; mirror: false and unmirrored prompts are not', async () => {
    const catalog = await catalogOf(MANIFEST);
    assert.deepEqual(
      [...catalog.tools.keys()],
      ['hello', 'read_handbook', 'read_logo', 'read_greeting', 'review_prompt'],
    );
    assert.deepEqual([...(catalog.mirrors?.keys() ?? [])], [...catalog.tools.keys()].slice(1));
    // The resources and prompts are still served as such.
    assert.equal(catalog.resources.size, 3);
    assert.equal(catalog.prompts.size, 2);
  });

  test('a static resource takes no arguments and answers its text', async () => {
    const catalog = await catalogOf(MANIFEST);
    const tool = catalog.tools.get('read_handbook')!;
    assert.deepEqual(tool.descriptor, {
      name: 'read_handbook',
      title: 'handbook',
      description: 'The support handbook.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    });
    const result = await tool.call({}, callContext());
    assert.deepEqual(result, { content: [{ type: 'text', text: '# Handbook\nBe kind.' }] });
  });

  test('a binary image answers an image block', async () => {
    const catalog = await catalogOf(MANIFEST);
    const result = await catalog.tools.get('read_logo')!.call({}, callContext());
    assert.deepEqual(result.content, [
      { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
    ]);
  });

  test("a template's variables are the arguments, with their descriptions and enums", async () => {
    const catalog = await catalogOf(MANIFEST);
    const tool = catalog.tools.get('read_greeting')!;
    assert.deepEqual(tool.descriptor.inputSchema, {
      type: 'object',
      properties: {
        lang: { type: 'string', description: 'The language', enum: ['en', 'fr'] },
        name: { type: 'string', description: 'Who is greeted' },
      },
      required: ['lang', 'name'],
      additionalProperties: false,
    });
    assert.equal(
      text(await tool.call({ lang: 'fr', name: 'Zoé / Ann' }, callContext())),
      'fr: hello Zoé / Ann',
    );
    const refused = await tool.call({ lang: 'de', name: 'x' }, callContext());
    assert.equal(refused.isError, true);
    assert.match(text(refused), /lang must be one of "en", "fr"/);
  });

  test('a prompt mirror takes its arguments and answers its messages, each labelled when the assistant speaks', async () => {
    const catalog = await catalogOf(MANIFEST);
    const tool = catalog.tools.get('review_prompt')!;
    assert.deepEqual(tool.descriptor.inputSchema, {
      type: 'object',
      properties: {
        change: { type: 'string', description: 'The change' },
        tone: { type: 'string', enum: ['brief', 'detailed'] },
      },
      required: ['change'],
      additionalProperties: false,
    });
    assert.equal(tool.descriptor.description, 'Review a change.');
    const result = await tool.call({ change: '#12', tone: 'brief' }, callContext());
    assert.equal(text(result), 'user: Review #12 (brief).\nassistant: Sure.');
    const missing = await tool.call({}, callContext());
    assert.equal(missing.isError, true);
    assert.match(text(missing), /change is required/);
  });

  test('a folder of files is one tool whose uri argument lists them', async () => {
    const catalog = await catalogOf(`
resources:
  docs: { kind: directory, path: ., glob: "*.{md,png}", mirror: true }
`);
    const tool = catalog.tools.get('read_docs')!;
    const uri = (tool.descriptor.inputSchema.properties as { uri: { enum: string[] } }).uri;
    assert.equal(uri.enum.length, 2);
    const handbook = uri.enum.find((u) => u.endsWith('handbook.md'))!;
    assert.equal(text(await tool.call({ uri: handbook }, callContext())), '# Handbook\nBe kind.');
    const other = await tool.call({ uri: 'file:///etc/passwd' }, callContext());
    assert.equal(other.isError, true);
  });

  test('a name a declared tool has is a manifest error at the mirror, with file:line:col', async () => {
    const error = await catalogOf(`
tools:
  read_handbook: { kind: content, content: [{ text: hi }] }
resources:
  handbook: { kind: file, path: handbook.md, mirror: true }
prompts:
  a: { messages: [{ text: A }], mirror: { name: same } }
  b: { messages: [{ text: B }], mirror: { name: same } }
`).then(
      () => assert.fail('compiled'),
      (err: unknown) => err,
    );
    assert.ok(error instanceof ManifestError);
    const found = error.diagnostics.map((d) => `${d.code} ${d.line}:${d.col} ${d.message}`);
    assert.equal(found.length, 2, found.join('\n'));
    assert.match(
      found[0]!,
      /^MIRROR_NAME_TAKEN 5:54 .*"read_handbook", which is already a tool of this manifest/,
    );
    assert.match(found[1]!, /^MIRROR_NAME_TAKEN 8:41 .*"same", which is already the mirror of prompts\.a/);
  });

  test('a mirror needs the scopes of what it mirrors, templates it matches included', async () => {
    const catalog = await catalogOf(MANIFEST);
    const policy = withMirrorScopes(
      {
        resources: { 'docs://handbook': ['docs'], 'greet://{lang}/{name}': ['greet'], 'img://{x}': ['img'] },
        prompts: { review: ['review'] },
        tools: { review_prompt: ['extra'] },
      },
      catalog.mirrors!,
    );
    assert.deepEqual(policy.tools, {
      review_prompt: ['extra', 'review'],
      read_handbook: ['docs'],
      read_logo: ['img'],
      read_greeting: ['greet'],
    });
  });

  test("a template's mirror needs the scopes of every policy URI under the template, as resources/read of it would", async () => {
    const catalog = await catalogOf(MANIFEST);
    const policy = withMirrorScopes(
      { resources: { 'greet://fr/alice': ['hr'], 'greet://en/x/y': ['other'] } },
      catalog.mirrors!,
    );
    const read = { method: 'resources/read', params: { uri: 'greet://fr/alice' } };
    const call = {
      method: 'tools/call',
      params: { name: 'read_greeting', arguments: { lang: 'fr', name: 'alice' } },
    };
    assert.deepEqual(scopesNeeded(read, policy), ['hr']);
    // At least what the read needs; a URI the template cannot match adds nothing.
    assert.deepEqual(scopesNeeded(call, policy), ['hr']);
  });
});
