/**
 * A skill made from a toolset is regenerated on reload, and listeners hear of it through the same
 * diff as any entry: an edit of a tool in the manifest, and an edit of a test case in tests/ (a file
 * watched as part of the generated SKILL.md), each give a new SKILL.md, a resources list change and
 * a resources/updated for its URI; an edit of a tool outside the toolset leaves the skill as it was.
 *
 * Real parts: files on disk, the builtin kinds, the real loader, compiler and Reloader with its
 * chokidar watcher.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCatalog } from '../../src/catalog/load.js';
import { Reloader } from '../../src/catalog/reload.js';
import { changesByView } from '../../src/catalog/toolsets.js';
import { CatalogRef, type ListCategory } from '../../src/catalog/types.js';
import { builtinKinds } from '../../src/kinds/builtin.js';
import { StderrLogger } from '../../src/log.js';
import { tempFiles } from '../helpers/demo.js';

const MANIFEST = (description: string) => `tools:
  find_order:
    kind: content
    description: ${description}
    input: { id: { type: string } }
    content: [{ text: "order {{id}}" }]
  other:
    kind: content
    description: Not in the toolset.
    content: [{ text: other }]
toolsets:
  orders: { tools: [find_order] }
skills:
  fromToolsets: [orders]
`;
const CASES = (id: string) =>
  `tests:\n  - name: finds an order\n    call: find_order\n    args: { id: "${id}" }\n    expect: { contains: order }\n`;

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('an edited tool or test case regenerates the skill and is announced; an unrelated edit is not', async () => {
  const files = tempFiles({ 'mcp.yaml': MANIFEST('One order by its id.'), 'tests/orders.yaml': CASES('7') });
  const file = join(files.dir, 'mcp.yaml');
  const registry = builtinKinds();
  const log = new StderrLogger('warn', () => {});
  const loaded = await loadCatalog(file, registry, log);
  const ref = new CatalogRef(loaded.catalog);
  const changes: ListCategory[][] = [];
  const updated: string[] = [];
  const reloader = new Reloader({
    file,
    ref,
    registry,
    log,
    listener: {
      // What a client of the default endpoint hears (the reloader asks about every category when
      // the manifest has toolsets; the hub compares each view).
      listChanged: (c, change) => void changes.push([...changesByView(c, change)(undefined)].sort()),
      resourceUpdated: (uri) => void updated.push(uri),
    },
    debounceMs: 20,
  });
  reloader.start(loaded.text);
  await reloader.ready();
  const text = async () => String(await ref.current.skills.get('orders')!.files[0]!.read());
  try {
    assert.match(await text(), /One order by its id\.[\s\S]*"id": "7"/);

    writeFileSync(file, MANIFEST('One order, by its id.'));
    await until(() => ref.current !== loaded.catalog, 'the manifest edit to be served');
    assert.match(await text(), /One order, by its id\./);
    assert.deepEqual(changes, [['resources', 'tools']], 'the tool changed, and so did the skill');
    assert.deepEqual(updated, ['skill://orders/SKILL.md']);

    const before = ref.current;
    writeFileSync(join(files.dir, 'tests/orders.yaml'), CASES('42'));
    await until(() => ref.current !== before, 'the test file edit to be served');
    assert.match(await text(), /"id": "42"/);
    assert.deepEqual(changes.at(-1), ['resources'], 'only the skill changed');
    assert.deepEqual(updated, ['skill://orders/SKILL.md', 'skill://orders/SKILL.md']);

    // The tool outside the toolset is not in the skill: editing it changes the tools, not the skill.
    const skill = ref.current.skills.get('orders')!.files[0]!.digest;
    const current = ref.current;
    writeFileSync(file, readFileSync(file, 'utf8').replace('Not in the toolset.', 'Still not in it.'));
    await until(() => ref.current !== current, 'the unrelated edit to be served');
    assert.equal(ref.current.skills.get('orders')!.files[0]!.digest, skill);
    assert.deepEqual(changes.at(-1), ['tools']);
    assert.equal(updated.length, 2);
  } finally {
    await reloader.close();
    await ref.current.dispose();
    files.cleanup();
  }
});
