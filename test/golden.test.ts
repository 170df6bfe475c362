/**
 * Golden tests, made of data: every manifest in fixtures/invalid must fail with exactly the error
 * text in its .expected.txt, and every folder in fixtures/valid must serve exactly the lists in its
 * expected.json. Regenerate after an intended change with `UPDATE_GOLDEN=1 npm test`, then review
 * the diff.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { compileCatalog } from '../src/catalog/compile.js';
import { CatalogRef } from '../src/catalog/types.js';
import { ManifestError } from '../src/errors.js';
import { builtinKinds } from '../src/kinds/builtin.js';
import { StderrLogger } from '../src/log.js';
import { loadManifest } from '../src/manifest/load.js';
import { createProtocol } from '../src/protocol/server.js';
import { demoCopy, REPO } from './helpers/demo.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const registry = builtinKinds();
const log = new StderrLogger('silent');

async function compile(file: string) {
  return compileCatalog(await loadManifest(file, registry, {}), registry, log);
}

/**
 * Compares `actual` with the golden file. Only UPDATE_GOLDEN=1 writes it: a missing file fails, so a
 * new case cannot pass on whatever it happens to print today without anyone reading it.
 */
function matchGolden(file: string, actual: string): void {
  if (UPDATE) writeFileSync(file, actual);
  else if (!existsSync(file)) {
    assert.fail(
      `golden file ${relative(REPO, file)} is missing: run \`UPDATE_GOLDEN=1 npm test\` to write it, then review it`,
    );
  }
  assert.equal(actual, readFileSync(file, 'utf8'), `golden file ${relative(REPO, file)} differs`);
}

describe('invalid manifests report every error with its position', () => {
  const dir = join(FIXTURES, 'invalid');
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    test(name, async () => {
      const file = join(dir, name);
      const err = await compile(file).then(
        () => assert.fail('the manifest compiled, but it should not'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ManifestError, `expected a ManifestError, got ${String(err)}`);
      const text = `${err.message.replaceAll(dir, '<fixtures>')}\n`;
      matchGolden(file.replace(/\.yaml$/, '.expected.txt'), text);
    });
  }
});

describe('valid manifests serve exactly their expected lists', () => {
  const dir = join(FIXTURES, 'valid');
  const cases = readdirSync(dir).map((name) => [name, join(dir, name, 'mcp.yaml')] as const);
  // The demo creates its database on first run: compile a private copy, not the repository's.
  const demo = demoCopy();
  after(() => demo.cleanup());
  for (const [name, file] of [...cases, ['demo (mcp.yaml.example)', demo.manifest] as const]) {
    test(name, async () => {
      const catalog = await compile(file);
      try {
        const lists = await listEverything(new CatalogRef(catalog));
        const expected = name.startsWith('demo')
          ? join(FIXTURES, 'demo.expected.json')
          : join(dir, name, 'expected.json');
        matchGolden(expected, `${JSON.stringify(lists, null, 2).replaceAll(REPO, '<repo>')}\n`);
      } finally {
        await catalog.dispose();
      }
    });
  }
});

/** What a 2025-era client sees from the four list methods. */
async function listEverything(ref: CatalogRef): Promise<Record<string, unknown>> {
  const sent: Record<string, unknown>[] = [];
  const connection = createProtocol(ref, { log, listChanged: false }).connect((m) => sent.push(m as never));
  await connection.receive({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'golden', version: '1' } },
  });
  const lists: Record<string, unknown> = {};
  for (const method of ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']) {
    await connection.receive({ jsonrpc: '2.0', id: method, method, params: {} });
    lists[method] = sent.find((m) => m.id === method)?.result;
  }
  connection.close();
  return lists;
}
