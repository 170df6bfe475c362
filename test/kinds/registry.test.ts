/**
 * The registry keeps a kind's info and imports the kind on first use, once; what it imports must be
 * the kind its info describes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { contentToolInfo } from '../../src/kinds/content/tool.info.js';
import type { ToolKind } from '../../src/kinds/contract/kinds.js';
import { KindRegistry } from '../../src/kinds/registry.js';

const importContent = async (): Promise<ToolKind> =>
  (await import('../../src/kinds/content/tool.js')).contentTool as unknown as ToolKind;

describe('KindRegistry', () => {
  test('knows a kind by its info, and imports it only when asked, once', async () => {
    let imports = 0;
    const registry = new KindRegistry().register('tools', contentToolInfo, async () => {
      imports++;
      return importContent();
    });
    assert.deepEqual(registry.kinds('tools'), ['content']);
    assert.equal(
      (registry.schema('tools', 'content') as { description?: string }).description,
      contentToolInfo.description,
    );
    assert.equal(imports, 0);
    const [first, second] = await Promise.all([
      registry.load('tools', 'content'),
      registry.load('tools', 'content'),
    ]);
    assert.equal(typeof first?.compile, 'function');
    assert.equal(first, second);
    assert.equal(await registry.load('tools', 'content'), first);
    assert.equal(imports, 1);
  });

  test('an unknown name loads nothing', async () => {
    const registry = new KindRegistry().register('tools', contentToolInfo, importContent);
    assert.equal(await registry.load('tools', 'contents'), undefined);
    assert.equal(await registry.load('resources', 'content'), undefined);
  });

  test('a kind object registered as it is loads as it is', async () => {
    const kind = await importContent();
    const registry = new KindRegistry().register('tools', kind);
    assert.equal(await registry.load('tools', 'content'), kind);
  });

  test('a module whose kind does not spread its info is refused', async () => {
    const other = { ...(await importContent()), configSchema: { type: 'object' } };
    const registry = new KindRegistry().register('tools', contentToolInfo, async () => other);
    await assert.rejects(registry.load('tools', 'content'), /KIND_MISMATCH: .*tools kind "content"/);
  });

  test('a module that fails to import names the kind', async () => {
    const registry = new KindRegistry().register('tools', contentToolInfo, async () => {
      await import('../../src/kinds/content/no-such-module.js' as string);
      throw new Error('unreachable');
    });
    await assert.rejects(
      registry.load('tools', 'content'),
      /cannot load tools kind "content": .*no-such-module/,
    );
  });

  test('a name registered twice throws', () => {
    const registry = new KindRegistry().register('tools', contentToolInfo, importContent);
    assert.throws(() => registry.register('tools', contentToolInfo, importContent), /KIND_DUPLICATE/);
  });
});
