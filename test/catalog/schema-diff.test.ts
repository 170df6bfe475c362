/**
 * The contract classification on a table of schema pairs: each rule in both directions (input and
 * output), through $ref/$defs, oneOf/anyOf, nested objects and arrays, enums and bounds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Contract, compareContracts } from '../../src/catalog/diff.js';
import { compareSchemas, type SchemaSide } from '../../src/catalog/schema-diff.js';
import type { ToolDescriptor } from '../../src/catalog/types.js';

const obj = (properties: object, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

interface Row {
  readonly rule: string;
  readonly before: unknown;
  readonly after: unknown;
  /** The class of each finding, as input and as output, and a word the finding's text contains. */
  readonly input: string;
  readonly output: string;
  readonly says: string;
  readonly path?: string;
}

const S = { type: 'string' };
const rows: Row[] = [
  {
    rule: 'new optional field',
    before: obj({ a: S }),
    after: obj({ a: S, b: S }),
    input: 'additive',
    output: 'additive',
    says: 'added (optional)',
    path: 'b',
  },
  {
    rule: 'new required field',
    before: obj({ a: S }),
    after: obj({ a: S, b: S }, ['b']),
    input: 'breaking',
    output: 'additive',
    says: 'added (required)',
    path: 'b',
  },
  {
    rule: 'removed field',
    before: obj({ a: S, b: S }),
    after: obj({ a: S }),
    input: 'breaking',
    output: 'breaking',
    says: 'removed',
    path: 'b',
  },
  {
    rule: 'became required',
    before: obj({ id: S }),
    after: obj({ id: S }, ['id']),
    input: 'breaking',
    output: 'additive',
    says: 'became required',
    path: 'id',
  },
  {
    rule: 'became optional',
    before: obj({ id: S }, ['id']),
    after: obj({ id: S }),
    input: 'additive',
    output: 'breaking',
    says: 'became optional',
    path: 'id',
  },
  {
    rule: 'wider type',
    before: obj({ n: { type: 'integer' } }),
    after: obj({ n: { type: 'number' } }),
    input: 'additive',
    output: 'breaking',
    says: 'widened',
    path: 'n',
  },
  {
    rule: 'narrower type',
    before: obj({ n: { type: ['string', 'null'] } }),
    after: obj({ n: S }),
    input: 'breaking',
    output: 'additive',
    says: 'narrowed',
    path: 'n',
  },
  {
    rule: 'other type',
    before: obj({ n: S }),
    after: obj({ n: { type: 'boolean' } }),
    input: 'breaking',
    output: 'breaking',
    says: 'type changed',
    path: 'n',
  },
  {
    rule: 'wider enum',
    before: obj({ e: { enum: ['a', 'b'] } }),
    after: obj({ e: { enum: ['a', 'b', 'c'] } }),
    input: 'additive',
    output: 'breaking',
    says: 'enum gained "c"',
    path: 'e',
  },
  {
    rule: 'narrower enum',
    before: obj({ e: { enum: ['a', 'b'] } }),
    after: obj({ e: { enum: ['a'] } }),
    input: 'breaking',
    output: 'additive',
    says: 'enum lost "b"',
    path: 'e',
  },
  {
    rule: 'const to enum',
    before: obj({ e: { const: 'a' } }),
    after: obj({ e: { enum: ['a', 'b'] } }),
    input: 'additive',
    output: 'breaking',
    says: 'enum gained',
    path: 'e',
  },
  {
    rule: 'changed default',
    before: obj({ l: { type: 'integer', default: 20 } }),
    after: obj({ l: { type: 'integer', default: 10 } }),
    input: 'breaking',
    output: 'changed',
    says: 'default changed from 20 to 10',
    path: 'l',
  },
  {
    rule: 'looser bound',
    before: obj({ l: { type: 'integer', maximum: 100 } }),
    after: obj({ l: { type: 'integer', maximum: 500 } }),
    input: 'additive',
    output: 'breaking',
    says: 'maximum raised',
    path: 'l',
  },
  {
    rule: 'tighter bound',
    before: obj({ l: { type: 'integer', minimum: 0 } }),
    after: obj({ l: { type: 'integer', minimum: 1 } }),
    input: 'breaking',
    output: 'additive',
    says: 'minimum raised from 0 to 1',
    path: 'l',
  },
  {
    rule: 'bound added',
    before: obj({ s: S }),
    after: obj({ s: { type: 'string', maxLength: 10 } }),
    input: 'breaking',
    output: 'additive',
    says: 'maxLength 10 added',
    path: 's',
  },
  {
    rule: 'bound removed',
    before: obj({ s: { type: 'string', minLength: 1 } }),
    after: obj({ s: S }),
    input: 'additive',
    output: 'breaking',
    says: 'minLength 1 removed',
    path: 's',
  },
  {
    rule: 'pattern changed',
    before: obj({ s: { type: 'string', pattern: '^a' } }),
    after: obj({ s: { type: 'string', pattern: '^b' } }),
    input: 'breaking',
    output: 'breaking',
    says: 'pattern changed',
    path: 's',
  },
  {
    rule: 'description only',
    before: obj({ s: { type: 'string', description: 'x' } }),
    after: obj({ s: { type: 'string', description: 'y' } }),
    input: 'changed',
    output: 'changed',
    says: 'description changed',
    path: 's',
  },
  {
    rule: 'other fields now accepted',
    before: obj({ a: S }),
    after: { ...obj({ a: S }), additionalProperties: true },
    input: 'additive',
    output: 'breaking',
    says: 'now accepts other fields',
    path: '',
  },
  {
    rule: 'nested object field removed',
    before: obj({ customer: obj({ address: obj({ zip: S, city: S }) }) }),
    after: obj({ customer: obj({ address: obj({ city: S }) }) }),
    input: 'breaking',
    output: 'breaking',
    says: 'removed',
    path: 'customer.address.zip',
  },
  {
    rule: 'array of objects gains a required field',
    before: obj({ lines: { type: 'array', items: obj({ sku: S }, ['sku']) } }),
    after: obj({
      lines: { type: 'array', items: obj({ sku: S, qty: { type: 'integer' } }, ['sku', 'qty']) },
    }),
    input: 'breaking',
    output: 'additive',
    says: 'added (required)',
    path: 'lines[].qty',
  },
  {
    rule: 'nested array items widen their enum',
    before: obj({ m: { type: 'array', items: { type: 'array', items: { enum: [1, 2] } } } }),
    after: obj({ m: { type: 'array', items: { type: 'array', items: { enum: [1, 2, 3] } } } }),
    input: 'additive',
    output: 'breaking',
    says: 'enum gained 3',
    path: 'm[][]',
  },
  {
    rule: 'a $defs target gains a required field',
    before: { ...obj({ a: { $ref: '#/$defs/Addr' } }), $defs: { Addr: obj({ zip: S }) } },
    after: { ...obj({ a: { $ref: '#/$defs/Addr' } }), $defs: { Addr: obj({ zip: S }, ['zip']) } },
    input: 'breaking',
    output: 'additive',
    says: 'became required',
    path: 'a.zip',
  },
  {
    rule: 'inlined where it was a $ref: no change but the bound',
    before: {
      ...obj({ a: { $ref: '#/$defs/Addr' } }),
      $defs: { Addr: obj({ zip: { type: 'string', maxLength: 5 } }) },
    },
    after: obj({ a: obj({ zip: { type: 'string', maxLength: 9 } }) }),
    input: 'additive',
    output: 'breaking',
    says: 'maxLength raised from 5 to 9',
    path: 'a.zip',
  },
  {
    rule: 'oneOf gains an alternative',
    before: obj({ id: { oneOf: [S, { type: 'integer' }] } }),
    after: obj({ id: { oneOf: [S, { type: 'integer' }, { type: 'null' }] } }),
    input: 'additive',
    output: 'breaking',
    says: 'gained the alternative',
    path: 'id',
  },
  {
    rule: 'anyOf loses an alternative',
    before: obj({ id: { anyOf: [S, { type: 'integer' }] } }),
    after: obj({ id: { anyOf: [S] } }),
    input: 'breaking',
    output: 'additive',
    says: 'lost the alternative',
    path: 'id',
  },
  {
    rule: 'an alternative changes inside',
    before: obj({ q: { oneOf: [obj({ a: S }), { type: 'integer' }] } }),
    after: obj({ q: { oneOf: [obj({ a: S }, ['a']), { type: 'integer' }] } }),
    input: 'breaking',
    output: 'additive',
    says: 'became required',
    path: 'q.a',
  },
  {
    rule: 'a plain schema becomes a union containing it',
    before: obj({ id: S }),
    after: obj({ id: { anyOf: [S, { type: 'integer' }] } }),
    input: 'additive',
    output: 'breaking',
    says: 'gained the alternative',
    path: 'id',
  },
  {
    rule: 'beside a oneOf: a field removed',
    before: { ...obj({ id: S, email: S }), oneOf: [{ required: ['id'] }, { required: ['email'] }] },
    after: { ...obj({ id: S }), oneOf: [{ required: ['id'] }, { required: ['email'] }] },
    input: 'breaking',
    output: 'breaking',
    says: 'removed',
    path: 'email',
  },
  {
    rule: 'beside an anyOf: a field changes type',
    before: { ...obj({ id: S }), anyOf: [{ required: ['id'] }, { minProperties: 2 }] },
    after: { ...obj({ id: { type: 'integer' } }), anyOf: [{ required: ['id'] }, { minProperties: 2 }] },
    input: 'breaking',
    output: 'breaking',
    says: 'type changed',
    path: 'id',
  },
  {
    rule: 'beside a oneOf: an enum loses a value',
    before: { ...obj({ mode: { enum: ['x', 'y'] } }), oneOf: [{ required: ['mode'] }, { maxProperties: 0 }] },
    after: { ...obj({ mode: { enum: ['x'] } }), oneOf: [{ required: ['mode'] }, { maxProperties: 0 }] },
    input: 'breaking',
    output: 'additive',
    says: 'enum lost "y"',
    path: 'mode',
  },
  {
    rule: 'a required key with no properties entry',
    before: obj({ a: S }),
    after: obj({ a: S }, ['b']),
    input: 'breaking',
    output: 'additive',
    says: 'became required',
    path: 'b',
  },
  {
    rule: 'a required key with no properties entry dropped',
    before: obj({ a: S }, ['b']),
    after: obj({ a: S }),
    input: 'additive',
    output: 'breaking',
    says: 'became optional',
    path: 'b',
  },
];

describe('schema classification', () => {
  for (const row of rows) {
    for (const side of ['input', 'output'] as SchemaSide[]) {
      it(`${row.rule} (${side})`, () => {
        const findings = compareSchemas(row.before, row.after, side);
        assert.equal(findings.length, 1, JSON.stringify(findings));
        const [finding] = findings;
        assert.equal(finding?.class, row[side]);
        assert.ok(finding?.text.includes(row.says), finding?.text);
        if (row.path !== undefined) assert.equal(finding?.path, row.path);
      });
    }
    it(`${row.rule}: reversed is the other way round`, () => {
      // Going back undoes the change: the reverse of an additive input change is breaking, and so on.
      const flip: Record<string, string> = { additive: 'breaking', breaking: 'additive', changed: 'changed' };
      const back = compareSchemas(row.after, row.before, 'input');
      assert.ok(back.length >= 1);
      const symmetric = [
        'removed',
        'added',
        'type changed',
        'pattern changed',
        'description changed',
        'default changed',
      ];
      if (symmetric.some((s) => row.says.startsWith(s))) return;
      assert.equal(back[0]?.class, flip[row.input], JSON.stringify(back));
    });
  }

  it('the same schema in another key and field order has no finding', () => {
    const a = {
      type: 'object',
      properties: { a: S, b: { type: 'integer', maximum: 3 } },
      required: ['a', 'b'],
    };
    const b = {
      required: ['b', 'a'],
      properties: { b: { maximum: 3, type: 'integer' }, a: S },
      type: 'object',
    };
    assert.deepEqual(compareSchemas(a, b, 'input'), []);
  });

  it('the keywords beside a union are compared as well as its alternatives', () => {
    // The reviewer's case: a field removed, another retyped and an enum value dropped, all beside
    // a oneOf that stays as it was.
    const before = {
      type: 'object',
      properties: { id: S, email: S, mode: { enum: ['x', 'y'] } },
      oneOf: [{ required: ['id'] }, { required: ['email'] }],
    };
    const after = {
      type: 'object',
      properties: { id: { type: 'integer' }, mode: { enum: ['x'] } },
      oneOf: [{ required: ['id'] }, { required: ['email'] }],
    };
    const findings = compareSchemas(before, after, 'input');
    assert.deepEqual(
      findings.map((f) => [f.path, f.class]),
      [
        ['id', 'breaking'],
        ['email', 'breaking'],
        ['mode', 'breaking'],
      ],
    );
  });

  it('a union with keywords beside it against a plain schema compares those keywords too', () => {
    // The oneOf goes and `email` with it: an output that no longer has `email` breaks its readers
    // (it used to be read as the plain schema against each alternative, all additive).
    const before = { ...obj({ id: S, email: S }), oneOf: [{ required: ['id'] }, { required: ['email'] }] };
    const after = obj({ id: S }, ['id']);
    for (const [x, y] of [
      [before, after],
      [after, before],
    ]) {
      const findings = compareSchemas(x, y, 'output');
      const email = findings.find((f) => f.path === 'email');
      assert.equal(email?.class, x === before ? 'breaking' : 'additive', JSON.stringify(findings));
    }
  });

  it('a recursive $ref is walked once and still compared', () => {
    const tree = (leaf: object) => ({
      $ref: '#/$defs/Node',
      $defs: { Node: obj({ value: leaf, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }) },
    });
    assert.deepEqual(compareSchemas(tree(S), tree(S), 'input'), []);
    const findings = compareSchemas(tree(S), tree({ type: 'integer' }), 'input');
    assert.equal(findings[0]?.path, 'value');
    assert.equal(findings[0]?.class, 'breaking');
  });
});

describe('tool execution.taskSupport', () => {
  const tool = (taskSupport?: 'forbidden' | 'optional' | 'required'): Contract => ({
    tools: [
      {
        name: 't',
        description: 'T.',
        inputSchema: { type: 'object' },
        // Our descriptors leave `forbidden` out; a running server's list (mcp-run diff URL) may say it.
        ...(taskSupport && { execution: { taskSupport } as ToolDescriptor['execution'] }),
      },
    ],
    resources: [],
    templates: [],
    prompts: [],
  });
  // Breaking when some caller's way of calling stops working: to required (a call without a
  // task is refused) or to forbidden (a call as a task is refused); to optional is additive.
  const rows = [
    ['forbidden', 'optional', 'additive'],
    ['forbidden', 'required', 'breaking'],
    ['optional', 'required', 'breaking'],
    ['required', 'optional', 'additive'],
    ['optional', 'forbidden', 'breaking'],
    ['required', 'forbidden', 'breaking'],
    [undefined, 'required', 'breaking'],
    ['optional', undefined, 'breaking'],
  ] as const;
  for (const [from, to, cls] of rows) {
    it(`${from ?? 'absent'} to ${to ?? 'absent'} is ${cls}`, () => {
      const changes = compareContracts(tool(from), tool(to));
      assert.deepEqual(
        changes.map((c) => [c.part, c.class]),
        [['execution.taskSupport', cls]],
      );
    });
  }
});
