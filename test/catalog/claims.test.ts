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
