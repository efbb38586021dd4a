/**
 * CSV injection: a cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or carriage
 * return first, OWASP "CSV Injection") is written with a `'` before it, which spreadsheets read
 * as "text follows". The one rule for every CSV the service writes: the streamed exports
 * (http/csv-encoder.ts) and the payout runs' bank files (payout-files.ts).
 */
const FORMULA = /^[=+\-@\t\r]/;
/** ...unless it is a number, like `-12.50`. */
const NUMBER = /^-?\d+(\.\d+)?$/;

/** Whether a spreadsheet would run `cell` as a formula. */
export function isFormulaCell(cell: string): boolean {
  return FORMULA.test(cell) && !NUMBER.test(cell);
}

/** `cell`, prefixed with `'` when a spreadsheet would run it as a formula. */
export function defuseFormula(cell: string): string {
  return isFormulaCell(cell) ? `'${cell}` : cell;
}
