import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { expect, test } from 'vitest';
import { CsvEncoder, type CsvCell } from '../../src/http/csv-encoder.ts';

/** What the exports wrote before the encoder: csv-stringify, booleans as words, formulas defused first. */
function reference(rows: CsvCell[][]): string {
  const defuse = (v: CsvCell) =>
    typeof v === 'string' && /^[=+\-@\t\r]/.test(v) && !/^-?\d+(\.\d+)?$/.test(v) ? `'${v}` : v;
  return stringify(
    rows.map((r) => r.map(defuse)),
    { cast: { boolean: (v) => String(v) } },
  );
}

const columns = (n: number) => Array.from({ length: n }, (_, i) => (row: CsvCell[]) => row[i]);

const text = fc.oneof(
  fc.string(),
  fc.string({
    unit: fc.constantFrom('a', ',', '"', '\n', '\r', '\t', '=', '+', '-', '@', "'", ' ', '1', '.', 'é', '€', '𝄞'),
  }),
  fc.constantFrom('-12.50', '-3', '=SUM(A1)', '+1', '@x', '\tx', '\rx', '"', '', '12.', '-.5', '1e5'),
);
const cell: fc.Arbitrary<CsvCell> = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);

test('the encoder writes what csv-stringify wrote, byte for byte, for any cells', () => {
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 8 })
        .chain((n) => fc.array(fc.array(cell, { minLength: n, maxLength: n }), { maxLength: 20 })),
      (rows) => {
        const n = rows[0]?.length ?? 1;
        const encoded = new CsvEncoder(columns(n)).encode(rows);
        expect(encoded.toString('utf8')).toBe(reference(rows));
      },
    ),
    { numRuns: 500 },
  );
});

test('a page larger than the scratch space, and the same encoder reused, round-trip through a CSV parser', () => {
  const long = 'x'.repeat(100_000);
  const enc = new CsvEncoder<CsvCell[]>(columns(3));
  const rows: CsvCell[][] = Array.from({ length: 2_000 }, (_, i) => [i, `name, "${i}"\n`, i % 2 === 0]);
  rows.push([long, '€'.repeat(30_000), null]);
  const first = enc.encode(rows);
  const second = enc.encode(rows.slice(0, 2));
  expect(first.toString('utf8')).toBe(reference(rows));
  expect(second.toString('utf8')).toBe(reference(rows.slice(0, 2)));
  const parsed = parse(first) as string[][];
  expect(parsed).toHaveLength(rows.length);
  expect(parsed[1]).toEqual(['1', 'name, "1"\n', 'false']);
  expect(parsed[2_000]![0]).toBe(long);
});
