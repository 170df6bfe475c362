/** Claim-bound inputs (`fromClaim`) in the catalog: what compiling checks, and what a call is told. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { compileCatalog } from '../../src/catalog/compile.js';
import type { CallerIdentity } from '../../src/catalog/types.js';
import { ManifestError } from '../../src/errors.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { loadManifest } from '../../src/manifest/load.js';
import { callContext, tempDir } from '../kinds/context.js';

async function catalogOf(yaml: string) {
  const file = join(tempDir(), 'mcp.yaml');
  writeFileSync(file, yaml);
  const registry = builtinKinds();
  return compileCatalog(await loadManifest(file, registry, {}), registry, new StderrLogger('silent'));
}

const TOOL = (input: string) =>
  [
    'tools:',
    '  me:',
    '    kind: content',
    '    description: Who the caller is.',
    '    input:',
    `      ${input}`,
    '      greeting: { type: string, default: Hello }',
    '    content:',
    '      - text: "{{greeting}}, {{who}}!"',
    '',
  ].join('\n');

const identity = (claims: Record<string, unknown>): CallerIdentity => ({
  issuer: 'https://issuer.example',
  subject: 'u1',
  claims,
  expiresAt: undefined,
  accessToken: () => 'the-token',
});

const text = (result: { content: readonly { type: string }[] }) =>
  result.content.map((block) => (block as { text?: string }).text).join('\n');

describe('fromClaim', () => {
  test('validate warns when the manifest has no server.auth: every call would be refused', async () => {
    const file = join(tempDir(), 'mcp.yaml');
    writeFileSync(file, TOOL('who: { fromClaim: email }'));
    const registry = builtinKinds();
    const manifest = await loadManifest(file, registry, {}, { deferErrors: true });
    const warnings: string[] = [];
    await compileCatalog(manifest, registry, new StderrLogger('silent'), {
      onWarning: (d) => warnings.push(`${d.code}: ${d.message}`),
    });
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0] ?? '',
      /ENTRY_WARNING: input "who" comes from the caller's access token .*no server.auth/,
    );
  });

  test('the bound input is not in the inputSchema; the claim fills it', async () => {
    const catalog = await catalogOf(TOOL('who: { type: string, format: email, fromClaim: email }'));
    const me = catalog.tools.get('me')!;
    assert.deepEqual(Object.keys(me.descriptor.inputSchema.properties as object), ['greeting']);
    const result = await me.call({}, { ...callContext(), identity: identity({ email: 'a@b.test' }) });
    assert.equal(text(result), 'Hello, a@b.test!');
  });

  test('no identity (stdio, a static credential): refused with a clear error', async () => {
    const catalog = await catalogOf(TOOL('who: { fromClaim: email }'));
    const result = await catalog.tools.get('me')!.call({}, callContext());
    assert.equal(result.isError, true);
    assert.match(text(result), /needs the caller's verified identity \(the "email" claim.*not over stdio/);
  });

  test('an argument naming the bound input is refused, even with an identity', async () => {
    const catalog = await catalogOf(TOOL('who: { fromClaim: email }'));
    const ctx = { ...callContext(), identity: identity({ email: 'a@b.test' }) };
    for (const value of ['x@y.test', null, 7]) {
      const result = await catalog.tools.get('me')!.call({ who: value }, ctx);
      assert.equal(result.isError, true);
      assert.match(
        text(result),
        /"who" \(from the "email" claim\) is set from the caller's verified access token/,
      );
    }
  });

  test('a token without the claim, or with a value the schema refuses, is refused', async () => {
    const catalog = await catalogOf(TOOL('who: { type: string, maxLength: 5, fromClaim: email }'));
    const me = catalog.tools.get('me')!;
    const none = await me.call({}, { ...callContext(), identity: identity({}) });
    assert.match(text(none), /needs the "email" claim of the caller's access token, and the token has none/);
    const long = await me.call(
      {},
      { ...callContext(), identity: identity({ email: 'far-too-long@x.test' }) },
    );
    assert.equal(long.isError, true);
    assert.match(text(long), /cannot use the "email" claim .* for "who"/);
    assert.doesNotMatch(text(long), /far-too-long/);
  });

  test('an untyped bound input takes only scalars', async () => {
    const catalog = await catalogOf(TOOL('who: { fromClaim: groups }'));
    const result = await catalog.tools
      .get('me')!
      .call({}, { ...callContext(), identity: identity({ groups: ['a', 'b'] }) });
    assert.match(text(result), /not a string, number or boolean/);
  });

  test('validate reports a malformed fromClaim, a default, and fromClaim in a verbatim inputSchema', async () => {
    for (const [yaml, pattern] of [
      [TOOL('who: { fromClaim: "" }'), /fromClaim names a claim/],
      [TOOL('who: { fromClaim: email, default: nobody }'), /cannot have a default/],
      [
        [
          'tools:',
          '  me:',
          '    kind: content',
          '    description: Who.',
          '    inputSchema: { type: object, properties: { who: { type: string, fromClaim: email } } }',
          '    content: [{ text: "{{who}}" }]',
          '',
        ].join('\n'),
        /fromClaim works in `input:` only/,
      ],
    ] as const) {
      const err = await catalogOf(yaml).then(
        () => assert.fail('compiled'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ManifestError, String(err));
      assert.match(err.message, pattern);
    }
  });
});

const PROMPT = `
server: { mirror: { prompts: true } }
prompts:
  notes:
    description: Notes of the caller.
    arguments:
      owner: { fromClaim: email }
      topic: { description: The topic, required: true }
    messages: [{ text: "Notes of {{owner}} about {{topic}}." }]
`;

describe('fromClaim on prompt arguments', () => {
  const signal = new AbortController().signal;
  const messageText = (result: { messages: readonly { content: { type: string } }[] }) =>
    result.messages.map((m) => (m.content as { text?: string }).text).join('\n');

  test('the bound argument is not listed; the claim fills it', async () => {
    const catalog = await catalogOf(PROMPT);
    const prompt = catalog.prompts.get('notes')!;
    assert.deepEqual(
      prompt.descriptor.arguments?.map((a) => a.name),
      ['topic'],
    );
    const result = await prompt.get({ topic: 'tea' }, signal, { identity: identity({ email: 'a@b.test' }) });
    assert.equal(messageText(result), 'Notes of a@b.test about tea.');
    assert.deepEqual(await prompt.complete('owner', '', {}), []);
  });

  test('no identity, a token without the claim, or a caller that passes it: refused, saying why', async () => {
    const prompt = (await catalogOf(PROMPT)).prompts.get('notes')!;
    await assert.rejects(
      prompt.get({ topic: 'tea' }, signal),
      /Prompt notes needs the caller's verified identity/,
    );
    await assert.rejects(
      prompt.get({ topic: 'tea' }, signal, { identity: identity({}) }),
      /needs the "email" claim of the caller's access token, and the token has none/,
    );
    await assert.rejects(
      prompt.get({ topic: 'tea', owner: 'x@y.test' }, signal, { identity: identity({ email: 'a@b.test' }) }),
      /Prompt notes refused the call: the argument "owner" \(from the "email" claim\)/,
    );
  });

  test("the prompt's mirror hides it too and reads the call's identity", async () => {
    const catalog = await catalogOf(PROMPT);
    const mirror = catalog.tools.get('get_prompt_notes')!;
    assert.deepEqual(Object.keys(mirror.descriptor.inputSchema.properties as object), ['topic']);
    const ctx = { ...callContext(), identity: identity({ email: 'a@b.test' }) };
    assert.equal(text(await mirror.call({ topic: 'tea' }, ctx)), 'Notes of a@b.test about tea.');
    const anonymous = await mirror.call({ topic: 'tea' }, callContext());
    assert.equal(anonymous.isError, true);
    assert.match(text(anonymous), /needs the caller's verified identity/);
  });

  test('a bound argument with a value list is a manifest error', async () => {
    const err = await catalogOf(PROMPT.replace('fromClaim: email', 'fromClaim: email, enum: [a]')).then(
      () => assert.fail('compiled'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ManifestError);
    assert.match(err.message, /prompts\.notes\.arguments\.owner\.fromClaim[\s\S]*no enum or complete list/);
  });
});
