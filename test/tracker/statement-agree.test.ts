/**
 * The canonical statement hashing is written twice, in the service (src/core/ledger/statement-hash.ts)
 * and in the standalone verifier (tracker/src/statement-format.ts): for any line, both give the same
 * line hash, causes digest, checkpoint text, balances text and decimals (fast-check, seeded).
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import {
  checkpointMessage,
  formatCheckpointBalances,
  statementCauseDigest,
  statementGenesis,
  statementLineHash,
} from '../../src/core/ledger/statement-hash.ts';
import { formatMinorUnits } from '../../src/core/shared/money.ts';
import { defuseFormula } from '../../src/core/shared/csv-formulas.ts';
import {
  COL,
  STATEMENT_COLUMNS,
  balancesText,
  causeDigest,
  checkpointText,
  decimalText,
  genesisHash,
  lineHash,
} from '../../tracker/src/statement-format.ts';
import { EXPORT_COLUMNS } from '../../src/core/reporting/exports.ts';

const id = fc.integer({ min: 1, max: 2 ** 31 - 1 });
const line = fc.record({
  id,
  created_at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  currency: fc.constantFrom('USD', 'EUR', 'VND', 'JPY', 'KWD'),
  kind: fc.constantFrom('commission_credit', 'refund_deduction', 'payout', 'payout_failed'),
  delta_cents: fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }).map(String),
  commission_id: fc.option(id),
  refund_id: fc.option(id),
  payout_id: fc.option(id),
  sale_id: fc.option(id),
  lead_customer_id: fc.option(id),
  transaction_id: fc.option(fc.string({ unit: 'grapheme', maxLength: 30 })),
});

/** The line's cells as the CSV file has them (absent: empty; a formula-like transaction id with its `'`). */
function cellsOf(l: typeof line extends fc.Arbitrary<infer T> ? T : never): string[] {
  const cells: string[] = STATEMENT_COLUMNS.map(() => '');
  for (const [name, value] of Object.entries(l)) {
    if (value === null) continue;
    cells[COL[name as keyof typeof COL]] = name === 'transaction_id' ? defuseFormula(String(value)) : String(value);
  }
  return cells;
}

test('the verifier knows the export’s columns', () => {
  expect([...STATEMENT_COLUMNS]).toEqual([...EXPORT_COLUMNS.statement]);
});

test('the pinned chain of README and docs: program 7, partner 3', () => {
  expect(genesisHash('7', '3')).toBe(statementGenesis(7, 3));
  expect(genesisHash('7', '3')).toBe('04a36c31e37077ca46fd60764da65d7e23fb6457fd7de76dc7a9bbd87e9eb610');
});

test('service and verifier agree on every line hash, causes digest and decimal', () => {
  fc.assert(
    fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), id, id, (lines, programId, partnerId) => {
      let service = statementGenesis(programId, partnerId);
      let verifier = genesisHash(String(programId), String(partnerId));
      let serviceDigest = service;
      let verifierDigest = verifier;
      for (const l of lines) {
        const cells = cellsOf(l);
        service = statementLineHash(service, l);
        verifier = lineHash(verifier, cells);
        serviceDigest = statementCauseDigest(serviceDigest, service, l);
        verifierDigest = causeDigest(verifierDigest, verifier, cells);
        expect(decimalText(BigInt(l.delta_cents), l.currency)).toBe(formatMinorUnits(l.delta_cents, l.currency));
      }
      expect(verifier).toBe(service);
      expect(verifierDigest).toBe(serviceDigest);
    }),
    { seed: 41, numRuns: 300 },
  );
});

test('service and verifier agree on the checkpoint text and its balances', () => {
  const balances = fc.dictionary(
    fc.constantFrom('USD', 'EUR', 'VND'),
    fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }),
  );
  fc.assert(
    fc.property(balances, id, id, id, fc.date({ noInvalidDate: true }), (b, programId, partnerId, lines, signedAt) => {
      const map = new Map(Object.entries(b));
      const text = formatCheckpointBalances(map);
      expect(balancesText(map)).toBe(text);
      const [hash, digest] = ['a'.repeat(64), 'b'.repeat(64)];
      const service = checkpointMessage({
        programId,
        partnerId,
        entryId: lines + 5,
        lines,
        hash,
        digest,
        balances: text,
        signedAt,
      });
      const verifier = checkpointText({
        programId: String(programId),
        partnerId: String(partnerId),
        entryId: String(lines + 5),
        lines: String(lines),
        hash,
        digest,
        balances: text,
        signedAt: signedAt.toISOString(),
      });
      expect(verifier).toBe(service);
    }),
    { seed: 41, numRuns: 200 },
  );
});
