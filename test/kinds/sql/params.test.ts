import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSqlParams, renderSql } from '../../../src/kinds/sql/params.js';

const cases: { name: string; sql: string; params: string[]; positional?: number }[] = [
  { name: 'one parameter', sql: 'SELECT * FROM t WHERE id = :id', params: ['id'] },
  {
    name: 'repeated names keep every occurrence',
    sql: 'WHERE (:c IS NULL OR c = :c) AND d = :d',
    params: ['c', 'c', 'd'],
  },
  { name: 'underscores and digits', sql: 'VALUES (:_a1, :b_2)', params: ['_a1', 'b_2'] },
  { name: 'a digit cannot start a name', sql: "SELECT '10:30', :9x", params: [] },
  { name: 'single-quoted string', sql: "SELECT ':no' || :yes", params: ['yes'] },
  { name: "doubled '' escape stays inside the string", sql: "SELECT 'it''s :no' , :yes", params: ['yes'] },
  { name: 'double-quoted identifier', sql: 'SELECT "a:no" FROM t WHERE x = :yes', params: ['yes'] },
  { name: 'doubled "" escape', sql: 'SELECT "a"":no" , :yes', params: ['yes'] },
  { name: 'backtick identifier', sql: 'SELECT `a:no` , :yes', params: ['yes'] },
  { name: 'bracket identifier', sql: 'SELECT [a:no] , :yes', params: ['yes'] },
  { name: 'line comment', sql: 'SELECT 1 -- :no\n, :yes', params: ['yes'] },
  { name: 'line comment at the end', sql: 'SELECT :yes -- :no', params: ['yes'] },
  { name: 'block comment', sql: 'SELECT /* :no \n :no2 */ :yes', params: ['yes'] },
  { name: 'unterminated block comment swallows the rest', sql: 'SELECT :yes /* :no', params: ['yes'] },
  { name: 'postgres cast', sql: 'SELECT :v::text, x::int', params: ['v'] },
  { name: 'postgres dollar quoting', sql: 'SELECT $$ :no $$, $tag$ :no $tag$, :yes', params: ['yes'] },
  {
    name: 'a ? outside quotes is positional',
    sql: 'SELECT * FROM t WHERE a = ? AND b = :b',
    params: ['b'],
    positional: 1,
  },
  { name: 'a ? in a string is not', sql: "SELECT '?' , :b", params: ['b'], positional: 0 },
  { name: 'a ? in a comment is not', sql: 'SELECT 1 -- why?\n', params: [], positional: 0 },
];

for (const c of cases) {
  test(`parseSqlParams: ${c.name}`, () => {
    const parsed = parseSqlParams(c.sql);
    assert.deepEqual(parsed.params, c.params);
    assert.equal(parsed.positional.length, c.positional ?? 0);
    // The segments and parameters rebuild the original text exactly.
    assert.equal(
      renderSql(parsed, (_, name) => `:${name}`),
      c.sql,
    );
  });
}

test('renderSql puts one placeholder per occurrence', () => {
  const parsed = parseSqlParams("SELECT ':x' , :a, :b, :a");
  assert.equal(
    renderSql(parsed, () => '?'),
    "SELECT ':x' , ?, ?, ?",
  );
  assert.equal(
    renderSql(parsed, (i) => `$${i + 1}`),
    "SELECT ':x' , $1, $2, $3",
  );
  assert.deepEqual(parsed.segments, ["SELECT ':x' , ", ', ', ', ', '']);
});
