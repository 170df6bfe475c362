/**
 * Hot reload compares each save with the text the catalog was built from by a digest of it
 * (reload.ts `textDigest`), hashed a piece at a time: it must be the digest of the whole text, a
 * surrogate pair cut by a piece's end included; read from its file a piece at a time
 * (`fileDigest`), the same.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileDigest, textDigest } from '../../src/catalog/reload.js';
import { tempFiles } from '../helpers/demo.js';

const whole = (...texts: string[]) => {
  const hash = createHash('sha256');
  for (const text of texts) hash.update(text);
  return hash.digest('base64url');
};

test('the digest of a text hashed in pieces is the digest of the whole text', () => {
  const piece = 64 * 1024;
  const emoji = '\u{1F600}';
  const texts = [
    '',
    'tools: {}\n',
    'a'.repeat(3 * piece + 17),
    // A pair whose high half ends a piece, and one whose low half starts the next.
    `${'a'.repeat(piece - 1)}${emoji}tail`,
    `${'b'.repeat(piece)}${emoji}${'c'.repeat(piece - 2)}${emoji}`,
    // A lone high surrogate at a piece's end stays lone.
    `${'d'.repeat(piece - 1)}\uD83Dx`,
    `é ’ ${emoji} `.repeat(40_000),
  ];
  for (const text of texts) {
    assert.equal(textDigest(text, ''), whole(text, ''), `${text.length} characters`);
    assert.equal(textDigest(text, `\0inc.yaml\0${text}`), whole(text, `\0inc.yaml\0${text}`));
  }
});

const files = tempFiles({});
after(() => files.cleanup());

test('a file read a piece at a time has the digest of its text, characters cut by a piece included', async () => {
  const piece = 64 * 1024;
  const file = join(files.dir, 'mcp.yaml');
  for (const text of [
    '',
    'tools: {}\n',
    // Two- and four-byte characters across the ends of pieces of bytes.
    `${'a'.repeat(piece - 1)}é${'b'.repeat(piece - 2)}\u{1F600}${'c'.repeat(piece - 3)}’ end`,
    `é ’ \u{1F600} `.repeat(40_000),
  ]) {
    writeFileSync(file, text);
    assert.equal(await fileDigest(file, '\0inc.yaml\0x'), textDigest(text, '\0inc.yaml\0x'));
  }
});
