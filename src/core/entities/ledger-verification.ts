import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

/** A program's last ledger verification (reporting/verify-ledger.ts): when, its result, its first difference. */
export const LedgerVerification = defineEntity({
  name: 'LedgerVerification',
  properties: {
    program: () => p.manyToOne(Program).mapToPk().primary(),
    verifiedAt: p.datetime(),
    /** How many differences it found (0: clean). */
    differences: p.integer(),
    /** The first difference found, in plain words (null: clean). */
    firstDifference: p.text().nullable(),
    /** Rows read. */
    rows: p.integer(),
    elapsedMs: p.integer(),
  },
});
export type ILedgerVerification = InferEntity<typeof LedgerVerification>;
