import test from 'ava';
import { parse } from 'csv-parse/sync';
import { csvCell } from '../src/csv.js';

test('csvCell: formulas neutralised, RFC 4180 quoting, fast paths agree with the rules', (t) => {
  t.is(csvCell(null), '');
  t.is(csvCell(undefined), '');
  t.is(csvCell(12), '12');
  t.is(csvCell(0), '0');
  t.is(csvCell(-3), "'-3", 'a negative number starts with "-": neutralised like any formula');
  t.is(csvCell(true), 'true');
  t.is(csvCell(new Date('2026-01-02T03:04:05.678Z')), '2026-01-02T03:04:05.678Z');
  for (const f of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) t.is(csvCell(f)[0] === '"' ? csvCell(f)[1] : csvCell(f)[0], "'", JSON.stringify(f));
  t.is(csvCell('a,b'), '"a,b"');
  t.is(csvCell('say "hi"'), '"say ""hi"""');
  const cells = ['=HYPERLINK("http://evil")', 'line\r\nbreak', 'plain', '-'];
  const [row] = parse(`${cells.map(csvCell).join(',')}\r\n`) as string[][];
  t.deepEqual(row, ["'=HYPERLINK(\"http://evil\")", 'line\r\nbreak', 'plain', "'-"], 'an independent CSV parser reads the cells back');
});
