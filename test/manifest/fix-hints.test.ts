// The table behind "did you mean integer" and "takes milliseconds: write 10000".
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { millisecondsHint, typeAlias } from '../../src/manifest/fix-hints.js';

const TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];

describe('fix hints', () => {
  test('a type named as another language names it gets the JSON Schema name', () => {
    const cases: [string, string | undefined][] = [
      ['int', 'integer'],
      ['INT', 'integer'],
      ['bigint', 'integer'],
      ['long', 'integer'],
      ['bool', 'boolean'],
      ['str', 'string'],
      ['float', 'number'],
      ['double', 'number'],
      ['decimal', 'number'],
      ['list', 'array'],
      ['dict', 'object'],
      ['map', 'object'],
      ['obj', 'object'],
      ['integer', undefined],
      ['strin', undefined],
    ];
    for (const [name, meant] of cases) assert.equal(typeAlias(name, TYPES), meant, name);
    assert.equal(typeAlias('int', ['string']), undefined, 'only a type the place allows');
  });

  test('a duration with a unit, in a field named …Ms, gets the milliseconds to write', () => {
    const cases: [string, unknown, string | undefined][] = [
      ['timeoutMs', '10s', 'timeoutMs takes milliseconds: write 10000'],
      ['timeoutMs', '500ms', 'timeoutMs takes milliseconds: write 500'],
      ['timeoutMs', '2m', 'timeoutMs takes milliseconds: write 120000'],
      ['timeoutMs', '1.5s', 'timeoutMs takes milliseconds: write 1500'],
      ['ttlMs', '1 hour', 'ttlMs takes milliseconds: write 3600000'],
      ['pollIntervalMs', '250', 'pollIntervalMs takes milliseconds: write 250 without quotes'],
      ['timeoutMs', '0.5ms', undefined],
      ['timeoutMs', '10 parsecs', undefined],
      ['timeoutMs', 'soon', undefined],
      ['timeoutMs', 10, undefined],
      ['maxRows', '10s', undefined],
    ];
    for (const [field, value, hint] of cases)
      assert.equal(millisecondsHint(field, value), hint, `${field}: ${value}`);
  });
});
