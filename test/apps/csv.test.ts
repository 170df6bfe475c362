/**
 * The table view's "Copy CSV" (web/views/csv.ts, toCsv): RFC 4180 quoting, and a text cell a
 * spreadsheet would run as a formula written with a leading `'`, so rows from a database cannot
 * become `=HYPERLINK(…)` in the user's spreadsheet. Numbers, negative ones too, stay numbers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toCsv } from '../../web/views/csv.js';

describe('the table view as CSV', () => {
  const columns = [{ key: 'name', label: 'Name' }, { key: 'note' }, { key: 'delta' }];

  it('quotes what RFC 4180 quotes', () => {
    const csv = toCsv(columns, [{ name: 'Ada, "the first"', note: 'line\nbreak', delta: 3 }]);
    assert.equal(csv, 'Name,note,delta\r\n"Ada, ""the first""","line\nbreak",3\r\n');
  });

  it("writes a text cell that starts like a formula with a leading ', and leaves numbers alone", () => {
    const rows = [
      { name: '=HYPERLINK("http://x.test","click")', note: '+1 555', delta: -5 },
      { name: '@SUM(A1)', note: '-x', delta: 0 },
      { name: '\tTab', note: 'plain', delta: 1.5 },
    ];
    const lines = toCsv(columns, rows).split('\r\n');
    assert.equal(lines[1], `"'=HYPERLINK(""http://x.test"",""click"")",'+1 555,-5`);
    assert.equal(lines[2], "'@SUM(A1),'-x,0");
    assert.equal(lines[3], "'\tTab,plain,1.5");
  });
});
