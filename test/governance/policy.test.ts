/**
 * The policy room on its own: the detectors (Luhn and IBAN checks, what they mask and what they
 * leave alone), JSON-path masking, expressions compiled at load (syntax, unknown variables and
 * fields, types, bounds), and the combining rule (every policy must pass; a failed evaluation
 * refuses; output rules chosen by claims).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Problem } from '../../src/errors.js';
import {
  argTypes,
  type EntryFacts,
  MAX_ARGS_BYTES,
  PolicyLanguage,
} from '../../src/governance/policy/cel.js';
import { PolicyCompiler, type PolicyPath } from '../../src/governance/policy/compile.js';
import { ibanValid, luhn, redact } from '../../src/governance/policy/detectors.js';
import { MAX_TEXT_BYTES, maskText, maskValue, parsePath } from '../../src/governance/policy/mask.js';
import type { PolicyConfig } from '../../src/governance/policy/policy.js';
import { shapeToolResult } from '../../src/governance/policy/shape.js';
import { GovernanceRefusal } from '../../src/governance/refusal.js';

describe('detectors', () => {
  it('checks card numbers with Luhn', () => {
    assert.equal(luhn('4111111111111111'), true);
    assert.equal(luhn('5500005555555559'), true);
    assert.equal(luhn('4111111111111112'), false);
    assert.equal(luhn('41111111x1111111'), false);
  });

  it('checks IBANs with ISO 13616 mod 97', () => {
    assert.equal(ibanValid('DE89370400440532013000'), true);
    assert.equal(ibanValid('GB82WEST12345698765432'), true);
    assert.equal(ibanValid('GB82WEST12345698765433'), false);
    assert.equal(ibanValid('de89370400440532013000'), false);
  });

  it('masks what they find and leaves look-alikes that fail the checks', () => {
    const all = ['email', 'phone', 'card', 'iban'] as const;
    assert.equal(redact('write to ann@example.com today', [...all]), 'write to [email] today');
    assert.equal(
      redact('card 4111 1111 1111 1111, ref 4111-1111-1111-1112', [...all]),
      'card [card], ref 4111-1111-1111-1112',
    );
    assert.equal(redact('IBAN DE89 3704 0044 0532 0130 00.', [...all]), 'IBAN [iban].');
    assert.equal(redact('IBAN DE00 3704 0044 0532 0130 00', ['iban']), 'IBAN DE00 3704 0044 0532 0130 00');
    assert.equal(redact('call +49 30 1234567 or (555) 123-4567', [...all]), 'call [phone] or [phone]');
    assert.equal(
      redact('on 2024-05-01 paid 1234.50 for order 12345678', [...all]),
      'on 2024-05-01 paid 1234.50 for order 12345678',
    );
    // Only the named detectors run.
    assert.equal(redact('ann@example.com 4111111111111111', ['card']), 'ann@example.com [card]');
  });
});

describe('detectors at the edges', () => {
  const all = ['email', 'phone', 'card', 'iban'] as const;
  it('find a card number touching a letter or a dash, grouped by dots, or followed by more digits', () => {
    assert.equal(redact('card 4111111111111111-0925 x', [...all]), 'card [card]-0925 x');
    assert.equal(redact('ref-4111111111111111', [...all]), 'ref-[card]');
    assert.equal(redact('4111.1111.1111.1111', [...all]), '[card]');
    assert.equal(redact('card 4111 1111 1111 1111 22', ['card']), 'card [card] 22');
    // Still not inside a longer run of digits.
    assert.equal(redact('41111111111111110', ['card']), '41111111111111110');
  });

  it('find a lowercase IBAN, and one followed by a word', () => {
    assert.equal(redact('iban de89370400440532013000 ok', [...all]), 'iban [iban] ok');
    assert.equal(redact('IBAN DE89 3704 0044 0532 0130 00 and more', ['iban']), 'IBAN [iban] and more');
  });

  it('mask an email whose local part is over 64 characters whole', () => {
    assert.equal(redact(`to ${'a'.repeat(80)}@example.com.`, ['email']), 'to [email].');
  });
});

describe('masking', () => {
  const rows = {
    rows: [
      { id: 1, email: 'a@x.test', salary: 5000, tags: ['vip'] },
      { id: 2, email: 'b@x.test', salary: 7 },
    ],
  };

  it('masks and drops by path, on a copy', () => {
    const seen = new Set<string>();
    const masking = {
      mask: [parsePath('$.rows[*].email'), parsePath('rows[*].salary')].map((p) => p as never),
      drop: [parsePath('$..tags') as never],
      detect: [],
    };
    const out = maskValue(rows, masking, seen) as typeof rows;
    assert.deepEqual(out.rows, [
      { id: 1, email: '***', salary: null },
      { id: 2, email: '***', salary: null },
    ]);
    assert.equal(rows.rows[0]?.email, 'a@x.test', 'the original is untouched');
    assert.deepEqual([...seen].sort(), ['5000', '7', 'a@x.test', 'b@x.test', 'vip']);
  });

  it("masks a tool result's _meta as its structured result (a view's data, MCP Apps)", () => {
    const masking = { mask: [], drop: [parsePath('$.secret') as never], detect: ['email' as never] };
    const out = shapeToolResult(
      { content: [{ type: 'text', text: 'ok' }], _meta: { owner: 'a@x.test', secret: 's', page: 2 } },
      masking,
    );
    assert.deepEqual(out._meta, { owner: '[email]', page: 2 });
  });

  it('masks text written from the values, and JSON text as JSON', () => {
    const masking = { mask: [parsePath('$.rows[*].salary') as never], drop: [], detect: [] };
    const seen = new Set(['5000', '7']);
    assert.equal(
      maskText('| 1 | 5000 |\n| 2 | 7 |\n\n2 rows, 17 of 70.', masking, seen),
      '| 1 | *** |\n| 2 | *** |\n\n2 rows, 17 of 70.',
    );
    assert.equal(
      maskText(JSON.stringify(rows), masking, new Set()),
      JSON.stringify({
        rows: [
          { ...rows.rows[0], salary: null },
          { ...rows.rows[1], salary: null },
        ],
      }),
    );
  });

  it('masks values masked in the structured result inside JSON text its paths do not reach', () => {
    // An HTTP answer's text is the bare array; its structured result is {result: [...]}.
    const masking = { mask: [parsePath('$.result[*].ssn') as never], drop: [], detect: [] };
    const seen = new Set<string>();
    maskValue({ result: [{ ssn: '078-05-1120', n: 3 }] }, masking, seen);
    assert.equal(
      maskText('[{"ssn":"078-05-1120","note":"ssn 078-05-1120","n":3}]', masking, seen),
      '[{"ssn":"***","note":"ssn ***","n":3}]',
    );
    const numbers = new Set(['5000']);
    assert.equal(maskText('[5000,50001,"5000"]', masking, numbers), '[null,50001,"***"]');
  });

  it('masks thousands of values in one pass: text and numbers standing alone, not inside others', () => {
    const values = new Set<string>();
    const lines: string[] = [];
    for (let i = 0; i < 2500; i++) {
      values.add(`p${i}@x.test`);
      values.add(String(100000 + i));
      lines.push(`| p${i}@x.test | ${100000 + i} | ${200000 + i} |`);
    }
    const out = maskText(lines.join('\n'), { mask: [], drop: [], detect: [] }, values);
    const first = out.split('\n')[0];
    assert.equal(first, '| *** | *** | 200000 |');
    assert.equal(out.split('\n').length, 2500);
    assert.doesNotMatch(out, /@x\.test|\| 10\d{4} \|/);
  });

  it('withholds text over the byte budget instead of searching it, for values and detectors', () => {
    const long = `${'row '.repeat(MAX_TEXT_BYTES / 4)}ann@example.com 4111111111111111`;
    const byValue = maskText(long, { mask: [], drop: [], detect: [] }, new Set(['ann@example.com']));
    assert.match(byValue, /^\[This text is withheld: it is over 1048576 bytes/);
    const byDetector = maskText(long, { mask: [], drop: [], detect: ['email', 'card'] }, new Set());
    assert.match(byDetector, /^\[This text is withheld/);
    // Masked values whose text is over the budget in all are not searched for either.
    const wide = new Set(Array.from({ length: 5 }, (_, i) => `${i}${'v'.repeat(MAX_TEXT_BYTES / 4)}`));
    assert.match(
      maskText('short text', { mask: [], drop: [], detect: [] }, wide),
      /^\[This text is withheld/,
    );
    // Under the budget the same text is searched.
    assert.equal(
      maskText(
        'ann@example.com 4111111111111111',
        { mask: [], drop: [], detect: ['email', 'card'] },
        new Set(),
      ),
      '[email] [card]',
    );
    // In a structured result, the detectors search 1 MiB of strings in all; past it a string is withheld.
    const out = maskValue(
      { a: 'x'.repeat(MAX_TEXT_BYTES - 20), b: 'ann@example.com', c: 'mail bob@example.com please' },
      { mask: [], drop: [], detect: ['email'] },
      new Set(),
    ) as Record<string, string>;
    assert.equal(out.b, '[email]');
    assert.match(out.c ?? '', /^\[withheld: past the bytes the detectors search/);
  });

  it('refuses a path it cannot read', () => {
    assert.match(String(parsePath('$.rows[?(@.x)]')), /cannot read the path/);
    assert.match(String(parsePath('$')), /names the whole result/);
  });
});

describe('expressions compiled at load', () => {
  const language = new PolicyLanguage();
  const types = argTypes({
    type: 'object',
    properties: { limit: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } }, any: {} },
  });

  it('types the arguments from the input schema', () => {
    assert.deepEqual({ ...types }, { limit: 'int', tags: 'list<string>', any: 'dyn' });
  });

  const problemOf = (text: string, args = types) => {
    const compiled = language.compile(text, args);
    return 'holds' in compiled ? undefined : compiled;
  };

  it('reports a syntax error, an unknown variable, an undeclared argument, a type error, a non-bool', () => {
    assert.equal(problemOf('args.limit <')?.kind, 'syntax');
    assert.deepEqual(problemOf('user.admin'), { kind: 'type', message: 'Unknown variable: user', offset: 0 });
    assert.deepEqual(problemOf('args.limt > 3'), { kind: 'type', message: 'No such key: limt', offset: 5 });
    assert.equal(problemOf('args.limit + "x" == "y"')?.kind, 'type');
    assert.match(problemOf('args.limit')?.message ?? '', /not a bool/);
    assert.equal(problemOf('args.tags.size() > 1 && args.any == 3'), undefined);
  });

  it('bounds the size of an expression and refuses a list macro inside another', () => {
    assert.equal(
      problemOf(Array.from({ length: 300 }, (_, i) => `args.limit == ${i}`).join(' || '))?.kind,
      'syntax',
    );
    assert.match(problemOf('args.tags.exists(a, args.tags.all(b, a == b))')?.message ?? '', /inside another/);
    assert.equal(problemOf('args.tags.exists(a, a == "x")'), undefined);
  });

  it('refuses matches() at load, as a method or a function, wherever it sits', () => {
    const method = problemOf('args.tags.exists(t, t.matches("^(a+)+$"))');
    assert.equal(method?.kind, 'syntax');
    assert.match(
      method?.message ?? '',
      /matches\(\) is not allowed .* backtracking .* startsWith\(\), endsWith\(\), contains\(\)/,
    );
    assert.equal(method?.offset, 20);
    assert.match(
      problemOf('matches(claims.email, ".*@x.test")', undefined)?.message ?? '',
      /matches\(\) is not/,
    );
    // A string that merely says "matches" is not a call.
    assert.equal(problemOf('"matches(" in args.tags'), undefined);
  });

  it('knows which expressions read the arguments', () => {
    const caller = language.compile('"admin" in claims.roles', types);
    const call = language.compile('args.limit < 10', types);
    assert.ok('holds' in caller && 'holds' in call);
    assert.equal(caller.readsArgs, false);
    assert.equal(call.readsArgs, true);
  });
});

describe('the combining rule', () => {
  const entry: EntryFacts = { name: 'orders', section: 'tools', annotations: { readOnlyHint: true } };
  const input = { type: 'object', properties: { limit: { type: 'integer', default: 500 } } };

  function compile(server: Record<string, PolicyConfig>, field: unknown) {
    const problems: [PolicyPath, Problem][] = [];
    const logged: string[] = [];
    const compiler = new PolicyCompiler(
      server,
      (path, problem) => problems.push([path, problem]),
      (m) => logged.push(m),
    );
    const policy = compiler.forEntry(entry, field as never, input, { limit: 500 });
    return { policy, problems, logged };
  }

  const refusedBy = (run: () => void): string | undefined => {
    try {
      run();
      return undefined;
    } catch (err) {
      assert.ok(err instanceof GovernanceRefusal);
      return err.rule;
    }
  };

  it('needs every applying policy to pass, server-wide first, and names the one that refuses', () => {
    const { policy, problems } = compile(
      {
        signed: { appliesTo: 'all', deny: '!has(claims.sub)' },
        staff: { allow: '"staff" in claims.roles' },
        reads: { allow: 'entry.annotations.readOnlyHint == true && entry.name == "orders"' },
      },
      ['staff', 'reads', { deny: 'args.limit > 100' }],
    );
    assert.deepEqual(problems, []);
    const decide = (claims: Record<string, unknown>, args: Record<string, unknown>) =>
      refusedBy(() => policy.decide(policy.input(claims, args)));
    assert.equal(decide({}, { limit: 1 }), 'signed');
    assert.equal(decide({ sub: 'a', roles: ['guest'] }, { limit: 1 }), 'staff');
    assert.equal(decide({ sub: 'a', roles: ['staff'] }, { limit: 1 }), undefined);
    assert.equal(decide({ sub: 'a', roles: ['staff'] }, { limit: 101 }), 'tools.orders');
    // An absent argument is its declared default: 500 is over the limit.
    assert.equal(decide({ sub: 'a', roles: ['staff'] }, {}), 'tools.orders');
  });

  it('fails closed when an expression cannot be evaluated, and logs why', () => {
    const { policy, logged } = compile({ staff: { allow: 'claims.roles.exists(r, r == "staff")' } }, 'staff');
    assert.equal(
      refusedBy(() => policy.decide(policy.input({ sub: 'x' }, {}))),
      'staff',
    );
    assert.match(logged[0] ?? '', /"staff" .* could not be evaluated, so it refuses: No such key: roles/);
    // A value of the wrong type (the arguments are not validated yet) refuses too.
    const own = compile({}, { deny: 'args.limit > 10' }).policy;
    assert.equal(
      refusedBy(() => own.decide(own.input({}, { limit: 'many' }))),
      'tools.orders',
    );
  });

  it('refuses, fail closed, when an expression that reads args would evaluate over too many bytes', () => {
    const wide = { type: 'object', properties: { a: { type: 'array' }, b: { type: 'array' } } };
    const logged: string[] = [];
    const compiler = new PolicyCompiler(
      {},
      () => assert.fail('compiles'),
      (m) => logged.push(m),
    );
    const field = { allow: 'args.a.all(x, !(x in args.b))' };
    const policy = compiler.forEntry(entry, field as never, wide);
    const small = { a: ['x'], b: ['y'] };
    assert.equal(
      refusedBy(() => policy.decide(policy.input({}, small))),
      undefined,
    );
    const big = Array.from({ length: MAX_ARGS_BYTES / 8 }, (_, i) => `v${i}`);
    assert.equal(
      refusedBy(() => policy.decide(policy.input({}, { a: big, b: big }))),
      'tools.orders',
    );
    assert.match(
      logged[0] ?? '',
      /could not be evaluated, so it refuses: the arguments are \d+ bytes as JSON, over the 65536/,
    );
    // An expression that reads only the caller is not bounded by the arguments' size.
    const caller = compiler.forEntry(entry, { allow: 'toolset == ""' } as never, wide);
    assert.equal(
      refusedBy(() => caller.decide(caller.input({}, { a: big, b: big }))),
      undefined,
    );
  });

  it('hides from lists only by what reads no arguments', () => {
    const { policy } = compile({ staff: { allow: '"staff" in claims.roles' } }, [
      'staff',
      { deny: 'args.limit > 100' },
    ]);
    assert.equal(policy.filtersLists, true);
    assert.equal(policy.hidden({ roles: ['guest'] }), true);
    assert.equal(policy.hidden({ roles: ['staff'] }), false);
    const byArgs = compile({}, { deny: 'args.limit > 100' }).policy;
    assert.equal(byArgs.filtersLists, false);
    assert.equal(byArgs.hidden({}), false);
  });

  it('chooses output rules by claims; one that cannot be evaluated applies', () => {
    const { policy } = compile(
      {
        pii: {
          output: [
            { unless: '"hr" in claims.roles', columns: ['email'] },
            { when: 'claims.tier == "free"', detect: ['card'] },
          ],
        },
      },
      'pii',
    );
    assert.equal(policy.masking(policy.input({ roles: ['hr'], tier: 'paid' }, {})), undefined);
    const staff = policy.masking(policy.input({ roles: ['staff'], tier: 'paid' }, {}));
    assert.equal(staff?.mask.length, 1);
    assert.deepEqual(staff?.detect, []);
    // No `roles` and no `tier`: both rules apply.
    const unknown = policy.masking(policy.input({}, {}));
    assert.equal(unknown?.mask.length, 1);
    assert.deepEqual(unknown?.detect, ['card']);
  });

  it('reports an unknown policy name and an expression against the entry input', () => {
    const { problems } = compile({ staff: { allow: 'args.nope == 1' } }, ['staf', 'staff']);
    assert.deepEqual(
      problems.map(([path, p]) => [path.join('.'), p.code]),
      [
        ['tools.orders.policy.0', 'POLICY_UNKNOWN'],
        ['server.policies.staff.allow', 'POLICY_TYPE'],
      ],
    );
  });
});
