import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Program } from '../entities/program.ts';
import { LedgerVerification } from '../entities/ledger-verification.ts';
import { typedSql } from '../db/sql.ts';
import { LedgerCheck, type LedgerDifference } from './ledger-check.ts';
import { verifyCommissions } from './verify-ledger-commissions.ts';
import { verifyPayouts, verifyStatements } from './verify-ledger-postings.ts';

export type { LedgerDifference };

export type LedgerVerifyReport = {
  programId: number;
  verifiedAt: Date;
  clean: boolean;
  /** Every difference found (`firstDifferences` holds the first per partner). */
  differences: number;
  firstDifferences: LedgerDifference[];
  partners: number;
  rows: number;
  elapsedMs: number;
};

/**
 * Recomputes a program's ledger from what was recorded (docs/ledger-verification.md) and compares
 * it with what is stored: commission amounts from the reward recorded on each and its sale,
 * reversals from the sales' refunds, every posting from its cause, each partner's running balances
 * against the stored balance, and the signed statement checkpoints against the chain. Rows are
 * read a page at a time (keyset) in one read-only REPEATABLE READ snapshot; nothing is written.
 * @throws AppError `not_found` (program).
 */
export async function verifyLedger(
  deps: CoreDeps,
  programId: number,
  o: { pageSize?: number; signal?: AbortSignal } = {},
): Promise<LedgerVerifyReport> {
  const program = await deps.em.findOne(Program, { id: programId }, { fields: ['id'] });
  if (!program) throw new AppError('not_found', 'No such program');
  const started = performance.now();
  const verifiedAt = deps.clock();
  const paging = { pageSize: o.pageSize ?? 1000, signal: o.signal };
  const check = new LedgerCheck();
  const partners = await deps.em.transactional(
    async (em: EntityManager) => {
      const db = typedSql(em);
      await verifyCommissions(db, programId, check, paging);
      await verifyPayouts(db, programId, check, paging);
      return verifyStatements(db, programId, check, paging);
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  return {
    programId,
    verifiedAt,
    clean: check.differences === 0,
    differences: check.differences,
    firstDifferences: check.report(),
    partners,
    rows: check.rows,
    elapsedMs: Math.round(performance.now() - started),
  };
}

/** Keeps a verification as the program's last (what the dashboard's overview says). */
export async function recordLedgerVerification(deps: CoreDeps, r: LedgerVerifyReport): Promise<void> {
  const first = r.firstDifferences[0];
  await deps.em.upsert(LedgerVerification, {
    program: r.programId,
    verifiedAt: r.verifiedAt,
    differences: r.differences,
    firstDifference: first ? `${first.partnerId === null ? '' : `partner ${first.partnerId}: `}${first.message}` : null,
    rows: Math.min(r.rows, 2_147_483_647),
    elapsedMs: Math.min(r.elapsedMs, 2_147_483_647),
  });
}

/** The program's last verification, or null. */
export async function lastLedgerVerification(deps: CoreDeps, programId: number) {
  return deps.em.findOne(LedgerVerification, { program: programId }, { disableIdentityMap: true });
}
