// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${env:…} in plain strings is the syntax under test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { envReferences } from '../../src/cli/env-refs.js';

describe('envReferences', () => {
  it('finds required and optional references in values, not in comments, keys or escapes', () => {
    const text = [
      '# ${env:IN_A_COMMENT}',
      'sources:',
      '  db: { kind: postgres, url: "${env:DB_URL}" }',
      '  api: { base: "https://${env:HOST:-example.com}/v1", token: "$${env:LITERAL}" }',
      '${env:AS_A_KEY}: 1',
      'list: [a, "${env:IN_A_LIST}", 3]',
    ].join('\n');
    assert.deepEqual(envReferences(text), { required: ['DB_URL', 'IN_A_LIST'], optional: ['HOST'] });
  });

  it('counts a name both required and optional as required, over every document', () => {
    const text = 'a: ${env:X:-1}\n---\nb: ${env:X}\nc: ${env:Y:-2}\n';
    assert.deepEqual(envReferences(text), { required: ['X'], optional: ['Y'] });
  });

  it('reads the value behind an alias once, and ends on an alias inside its own anchor', () => {
    const text = 'a: &u "${env:SHARED}"\nb: *u\nt: &x\n  url: ${env:INNER}\n  self: [*x]\n';
    assert.deepEqual(envReferences(text), { required: ['INNER', 'SHARED'], optional: [] });
  });
});
