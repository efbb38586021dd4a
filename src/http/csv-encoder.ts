/**
 * CSV for large exports, written straight into bytes: each page of rows becomes one Buffer, with
 * no intermediate record arrays, per-cell objects or string concatenation. The output is the same
 * as csv-stringify's with its defaults (`,` between cells, `"` quoting only where a cell contains
 * `,`, `"`, `\n` or `\r`, `""` inside quotes, `\n` after every record), booleans as `true`/`false`
 * and `null` as an empty cell; test/api/csv-encoder.test.ts compares the two.
 *
 * What a large export allocates per row is what its memory costs: every short-lived object made
 * while a page is written may survive a young-generation collection and be promoted (see
 * docs/performance.md, CSV export).
 */

import { isFormulaCell } from '../core/shared/csv-formulas.ts';

export type CsvCell = string | number | bigint | boolean | null | undefined;
/** How one column's cell is read from a row. */
export type CsvColumn<T> = (row: T) => CsvCell;

const NEEDS_QUOTES = /[",\n\r]/;
const COMMA = 0x2c;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const NEWLINE = 0x0a;

export class CsvEncoder<T> {
  readonly #columns: ReadonlyArray<CsvColumn<T>>;
  readonly #defuseFormulas: boolean;
  #buf: Buffer = Buffer.allocUnsafe(64 * 1024);
  #at = 0;

  /**
   * @param columns each column's cell, in order.
   * @param defuseFormulas prefix string cells a spreadsheet would run as a formula with `'`
   *   (core/csv-formulas.ts; partner names, codes and transaction ids come from outside).
   */
  constructor(columns: ReadonlyArray<CsvColumn<T>>, defuseFormulas = true) {
    this.#columns = columns;
    this.#defuseFormulas = defuseFormulas;
  }

  /** The records of `rows`, each ended by `\n`, as a new Buffer (the encoder's scratch space is reused). */
  encode(rows: readonly T[]): Buffer {
    this.#at = 0;
    const columns = this.#columns;
    for (const row of rows) {
      for (let i = 0; i < columns.length; i++) {
        if (i) this.#byte(COMMA);
        this.#cell(columns[i]!(row));
      }
      this.#byte(NEWLINE);
    }
    const out = Buffer.allocUnsafe(this.#at);
    this.#buf.copy(out, 0, 0, this.#at);
    return out;
  }

  #cell(v: CsvCell): void {
    if (v === null || v === undefined || v === '') return;
    if (typeof v === 'boolean') return this.#text(v ? 'true' : 'false');
    if (typeof v !== 'string') return this.#text(String(v));
    const defuse = this.#defuseFormulas && isFormulaCell(v);
    if (!NEEDS_QUOTES.test(v)) {
      if (defuse) this.#byte(APOSTROPHE);
      return this.#text(v);
    }
    this.#byte(QUOTE);
    if (defuse) this.#byte(APOSTROPHE);
    this.#text(v.includes('"') ? v.replaceAll('"', '""') : v);
    this.#byte(QUOTE);
  }

  #byte(b: number): void {
    if (this.#at === this.#buf.length) this.#grow(1);
    this.#buf[this.#at++] = b;
  }

  #text(s: string): void {
    // At most three bytes of UTF-8 per UTF-16 code unit.
    if (this.#at + s.length * 3 > this.#buf.length) this.#grow(s.length * 3);
    this.#at += this.#buf.write(s, this.#at);
  }

  #grow(atLeast: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#at + atLeast));
    this.#buf.copy(next, 0, 0, this.#at);
    this.#buf = next;
  }
}
