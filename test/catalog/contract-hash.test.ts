/**
 * The contract hash: the same for manifests that differ in formatting, comments, key order, field
 * order and entry order; different when anything a client sees changes, a description included.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { contractHash } from '../../src/catalog/contract-hash.js';
import { loadCatalog } from '../../src/catalog/load.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { tempFiles } from '../helpers/demo.js';

const files = tempFiles({});
after(() => files.cleanup());

async function hashOf(text: string): Promise<string> {
  const file = join(files.dir, 'mcp.yaml');
  writeFileSync(file, text);
  const { catalog } = await loadCatalog(file, builtinKinds(), new StderrLogger('silent'));
  try {
    return contractHash(catalog);
  } finally {
    await catalog.dispose();
  }
}

const BASE = `tools:
  a:
    kind: shell
    description: First.
    command: [echo, "{{x}}", "{{y}}"]
    input:
      x: { type: string, maxLength: 5 }
      y: { type: integer, required: false }
  b:
    kind: shell
    description: Second.
    command: [echo, b]
prompts:
  p: { description: A prompt., messages: [{ text: hi }] }
`;

const REWRITTEN = `# the same contract, written otherwise
prompts:
  p:
    messages: [{ text: hi }]
    description: "A prompt."
tools:
  b: { command: [echo, b], kind: shell, description: Second. }
  a:
    input:
      y: { required: false, type: integer }
      x: { maxLength: 5, type: string }
    command: [echo, "{{x}}", "{{y}}"]
    kind: shell
    description: First.
`;

test('formatting, comments, key, field and entry order leave the hash as it is', async () => {
  const hash = await hashOf(BASE);
  assert.match(hash, /^[0-9a-f]{16}$/);
  assert.equal(await hashOf(REWRITTEN), hash);
});

test('a change a client sees changes the hash, a description too', async () => {
  const hash = await hashOf(BASE);
  assert.notEqual(await hashOf(BASE.replace('maxLength: 5', 'maxLength: 6')), hash);
  assert.notEqual(await hashOf(BASE.replace('description: Second.', 'description: Second!')), hash);
  assert.notEqual(await hashOf(BASE.replace('  b:\n', '  c:\n')), hash);
});

const VERBATIM = `tools:
  v:
    kind: shell
    description: Verbatim.
    command: [echo, "{{a}}"]
    inputSchema:
      type: object
      properties: { a: { type: string, maxLength: 5 }, b: { type: string, examples: [5] } }
      required: [a, b]
`;

test('a required list in another order, or a number written otherwise, leaves the hash as it is', async () => {
  const hash = await hashOf(VERBATIM);
  assert.equal(await hashOf(VERBATIM.replace('required: [a, b]', 'required: [b, a]')), hash);
  assert.equal(await hashOf(VERBATIM.replace('maxLength: 5', 'maxLength: 5.0')), hash);
  assert.notEqual(await hashOf(VERBATIM.replace('required: [a, b]', 'required: [a]')), hash);
  assert.notEqual(await hashOf(VERBATIM.replace('examples: [5]', 'examples: ["5"]')), hash);
});

test('values that the mixing once took for one another hash apart', async () => {
  // A double's two words; a number whose words are 0 and 65 (1.4e-312) against the text "A".
  const words = new Uint32Array(2);
  const asDouble = (low: number, high: number) => {
    words[0] = low;
    words[1] = high;
    return new Float64Array(words.buffer)[0]!;
  };
  const withDefault = (value: string) => BASE.replace('maxLength: 5 }', `maxLength: 5, default: ${value} }`);
  const pairs = [
    ['1', '-1.0000004768371582'],
    ['100', '-100.00003051757812'],
    ['"A"', String(asDouble(0, 65))],
  ];
  for (const [a, b] of pairs)
    assert.notEqual(await hashOf(withDefault(a!)), await hashOf(withDefault(b!)), `${a} ${b}`);
});
