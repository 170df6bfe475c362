/**
 * Hot reload compares each save with the text the catalog was built from by a digest of it
 * (reload.ts `textDigest`), hashed a piece at a time: it must be the digest of the whole text, a
 * surrogate pair cut by a piece's end included.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { textDigest } from '../../src/catalog/reload.js';

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
