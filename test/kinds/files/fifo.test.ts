/**
 * Named pipes in a served folder: real FIFOs (made with `mkfifo`), which an open would wait on
 * forever for a writer. Every file-reading path refuses them without opening them, promptly, and
 * more FIFO reads than libuv has threads leave ordinary reads working.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ResourceNotFound } from '../../../src/catalog/types.js';
import { contentTool } from '../../../src/kinds/content/tool.js';
import { directoryResource } from '../../../src/kinds/files/directory.js';
import { fileResource } from '../../../src/kinds/files/file.js';
import { readInside } from '../../../src/kinds/shared/paths.js';
import { tempDir, testContext } from '../context.js';

const base = realpathSync(tempDir());
const mkfifo = (path: string) => execFileSync('mkfifo', [path]);
writeFileSync(join(base, 'a.txt'), 'plain text');
mkfifo(join(base, 'pipe.txt'));
mkfifo(join(base, 'pipe.png'));

/** Fails instead of hanging: a FIFO that is opened blocks for as long as nobody writes to it. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

test('readInside refuses a FIFO without opening it, and other reads keep working', async () => {
  // Twice as many as libuv's default pool of 4: each stuck open would hold one thread for good.
  const fifoReads = Array.from({ length: 8 }, () => readInside(base, join(base, 'pipe.txt'), 1024, 'pipe'));
  assert.deepEqual(await within(5000, 'the FIFO reads', Promise.all(fifoReads)), Array(8).fill(undefined));
  const plain = await within(5000, 'a plain read', readInside(base, join(base, 'a.txt'), 1024, 'a'));
  assert.equal(plain?.toString(), 'plain text');
});

test('a directory listing skips the FIFOs; reading one by its URI is "not found"', async () => {
  const ctx = testContext({ baseDir: base, name: 'docs' });
  const compiled = await within(5000, 'the listing', directoryResource.compile({ path: '.' }, ctx));
  assert.deepEqual(ctx.errors, []);
  assert.deepEqual(
    compiled?.resources.map((r) => r.descriptor.name),
    ['a.txt'],
  );
  const plain = compiled!.resources[0]!;
  const contents = await within(5000, 'reading a.txt', plain.read(new AbortController().signal));
  assert.equal((contents[0] as { text?: string }).text, 'plain text');
});

test('a file resource swapped for a FIFO after load answers "not found" at once', async () => {
  const path = join(base, 'swapped.txt');
  writeFileSync(path, 'first');
  const ctx = testContext({ baseDir: base, name: 'swapped' });
  const compiled = await fileResource.compile({ path: 'swapped.txt', uri: 'notes://swapped' }, ctx);
  assert.deepEqual(ctx.errors, []);
  const resource = compiled!.resources[0]!;
  rmSync(path);
  mkfifo(path);
  await assert.rejects(
    within(5000, 'reading the FIFO', resource.read(new AbortController().signal)),
    ResourceNotFound,
  );
});

test('a file resource naming a FIFO is refused when the manifest loads', async () => {
  const ctx = testContext({ baseDir: base, name: 'pipe' });
  await within(5000, 'the compile', Promise.resolve(fileResource.compile({ path: 'pipe.txt' }, ctx)));
  assert.match(JSON.stringify(ctx.errors), /is not a file/);
});

test('a content tool embedding a FIFO as an image is refused at load, without blocking the process', async () => {
  const ctx = testContext({ baseDir: base, name: 'pic' });
  await within(
    5000,
    'the compile',
    Promise.resolve(contentTool.compile({ content: [{ image: { path: 'pipe.png' } }] } as never, ctx)),
  );
  assert.match(JSON.stringify(ctx.errors), /"pipe.png\\" is not a file/);
});
