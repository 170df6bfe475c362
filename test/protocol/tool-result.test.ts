/** toWire: structured content also goes out as JSON text, unless a text block already carries it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toWire } from '../../src/protocol/tool-result.js';

const structured = { id: 42, tags: ['a', 'b'], nested: { ok: true } };
const textOf = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  structuredContent: structured,
});

test('a text block that is the structured content, pretty or compact or reordered, is kept alone', () => {
  for (const text of [
    JSON.stringify(structured, null, 2),
    JSON.stringify(structured),
    '{ "tags": ["a", "b"], "nested": { "ok": true }, "id": 42 }',
  ]) {
    assert.deepEqual(toWire(textOf(text)), {
      content: [{ type: 'text', text }],
      structuredContent: structured,
    });
  }
});

test('a text block that only looks like it gets the structured content added as JSON text', () => {
  for (const text of ['{"id": 43}', '{ not json', '| id |\n| --- |\n| 42 |']) {
    assert.deepEqual(toWire(textOf(text)), {
      content: [
        { type: 'text', text },
        { type: 'text', text: JSON.stringify(structured) },
      ],
      structuredContent: structured,
    });
  }
});
