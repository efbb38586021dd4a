/**
 * Signed checkpoints of partners' statements (docs/statement-verification.md): the chain head of a
 * partner's ledger, with its line count and balances, signed by the deployment's current key at
 * every payout (in the payout's transaction) and by the scheduled sweep. Each checkpoint continues
 * from the previous one, so signing reads only the lines added since; a ledger whose lines up to
 * the previous checkpoint no longer count what it signed was changed underneath, and is not
 * signed again (the caller logs it).
 */
import type { EntityManager } from '@mikro-orm/sql';
import {
  StatementCheckpoint,
  type CheckpointReason,
  type IStatementCheckpoint,
} from '../entities/statement-checkpoint.ts';
import type { Sealer } from '../shared/sealed-secrets.ts';
import { exactText, typedSql } from '../db/sql.ts';
import { statementLinesPage } from './statement-lines.ts';
import {
  checkpointMessage,
  formatCheckpointBalances,
  parseCheckpointBalances,
  statementCauseDigest,
  statementGenesis,
  statementLineHash,
} from './statement-hash.ts';
import { currentStatementKey, signWithStatementKey } from './statement-keys.ts';

export type CheckpointOutcome =
  | { status: 'signed'; checkpoint: IStatementCheckpoint }
  /** No line since the latest checkpoint. */
  | { status: 'unchanged' }
  /** No signing key (nothing can be sealed in this deployment). */
  | { status: 'no_key' }
  /** The lines up to the latest checkpoint are not the ones it signed: the ledger was changed. */
  | { status: 'refused'; reason: string };

const PAGE = 1000;

/** The newest checkpoint of a partner (highest line, then newest). */
export function latestCheckpoint(em: EntityManager, partnerId: number): Promise<IStatementCheckpoint | null> {
  return em.findOne(StatementCheckpoint, { partner: partnerId }, { orderBy: [{ entryId: 'desc' }, { id: 'desc' }] });
}

async function linesUpTo(em: EntityManager, partnerId: number, entryId: number): Promise<number> {
  const row = await typedSql(em)
    .selectFrom('balance_entry')
    .select((eb) => exactText(eb.fn.countAll()).as('n'))
    .where('partner_id', '=', partnerId)
    .where('id', '<=', entryId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Signs the head of a partner's statement, on the caller's context (its transaction, if any).
 * `sealer` absent or unable to open: `no_key`.
 */
export async function signStatementCheckpoint(
  em: EntityManager,
  sealer: Sealer | undefined,
  at: { now: Date; programId: number; partnerId: number; reason: CheckpointReason },
): Promise<CheckpointOutcome> {
  const key = sealer?.canSeal ? await currentStatementKey(em) : null;
  if (!sealer || !key) return { status: 'no_key' };
  const previous = await latestCheckpoint(em, at.partnerId);
  let hash = previous?.hash ?? statementGenesis(at.programId, at.partnerId);
  let digest = previous?.digest ?? hash;
  let lines = previous?.lines ?? 0;
  let entryId = previous?.entryId ?? 0;
  const balances = parseCheckpointBalances(previous?.balances ?? '');
  if (previous && (await linesUpTo(em, at.partnerId, previous.entryId)) !== previous.lines)
    return { status: 'refused', reason: `the lines up to ${previous.entryId} differ from checkpoint ${previous.id}` };
  for (;;) {
    const page = await statementLinesPage(em, { partnerId: at.partnerId, after: entryId, limit: PAGE });
    for (const line of page) {
      hash = statementLineHash(hash, line);
      digest = statementCauseDigest(digest, hash, line);
      balances.set(line.currency, (balances.get(line.currency) ?? 0n) + BigInt(line.delta_cents));
      lines++;
      entryId = line.id;
    }
    if (page.length < PAGE) break;
  }
  if (entryId === (previous?.entryId ?? 0)) return { status: 'unchanged' };
  const facts = {
    programId: at.programId,
    partnerId: at.partnerId,
    entryId,
    lines,
    hash,
    digest,
    balances: formatCheckpointBalances(balances),
    signedAt: at.now,
  };
  const checkpoint = em.create(StatementCheckpoint, {
    program: facts.programId,
    partner: facts.partnerId,
    entryId,
    lines,
    hash,
    digest,
    balances: facts.balances,
    reason: at.reason,
    keyId: key.keyId,
    signature: signWithStatementKey(sealer, key, checkpointMessage(facts)),
    signedAt: at.now,
  });
  await em.flush();
  return { status: 'signed', checkpoint };
}
