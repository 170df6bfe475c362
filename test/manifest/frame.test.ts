import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeFrame, dottedPath } from '../../src/manifest/frame.js';

describe('codeFrame', () => {
  const text = ['a: 1', 'b: 2', 'c: 3', 'd: 4'].join('\n');

  it('shows up to two lines before, marks the line and puts a caret under the column', () => {
    assert.equal(codeFrame(text, 3, 4), ['  1 | a: 1', '  2 | b: 2', '> 3 | c: 3', '    |    ^'].join('\n'));
    assert.equal(codeFrame(text, 1, 1), ['> 1 | a: 1', '    | ^'].join('\n'));
  });

  it('right-aligns line numbers', () => {
    const long = Array.from({ length: 12 }, (_, i) => `k${i + 1}: v`).join('\n');
    assert.equal(
      codeFrame(long, 10, 1),
      ['   8 | k8: v', '   9 | k9: v', '> 10 | k10: v', '     | ^'].join('\n'),
    );
  });

  it('keeps tabs so the caret lines up', () => {
    assert.equal(codeFrame('x: "\ty"', 1, 6), ['> 1 | x: "\ty"', '    |     \t^'].join('\n'));
  });
});

describe('dottedPath', () => {
  it('joins keys with dots, brackets indices and unusual keys', () => {
    assert.equal(dottedPath(['tools', 'find_orders', 'input', 'limit']), 'tools.find_orders.input.limit');
    assert.equal(dottedPath(['prompts', 'p', 'messages', 0, 'text']), 'prompts.p.messages[0].text');
    assert.equal(dottedPath(['tools', 'a.b', 'sql']), 'tools["a.b"].sql');
  });
});
