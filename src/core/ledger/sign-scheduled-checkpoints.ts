import type { CoreDeps } from '../deps.ts';
import { typedSql } from '../db/sql.ts';
import { signStatementCheckpoint } from './statement-checkpoints.ts';

/**
 * The scheduled checkpoints: at most once per `intervalMs` (across processes: the run claims the
 * installation's `statement_swept_at` first), every partner with ledger lines since the previous
 * run gets its statement head signed, each in a transaction of its own. A partner whose ledger no
 * longer matches its last checkpoint is logged as an error and left unsigned. Returns how many
 * checkpoints were signed (0 when not due, or when there is no signing key).
 */
export async function signScheduledCheckpoints(deps: CoreDeps, intervalMs: number): Promise<number> {
  const now = deps.clock();
  const db = typedSql(deps.em);
  if (!deps.sealer?.canSeal) return 0;
  const claimed = await db
    .updateTable('service_instance')
    .set({ statement_swept_at: now })
    .where('id', '=', 1)
    .where((eb) =>
      eb.or([
        eb('statement_swept_at', 'is', null),
        eb('statement_swept_at', '<=', new Date(now.getTime() - intervalMs)),
      ]),
    )
    .returning('statement_swept_entry_id')
    .executeTakeFirst();
  if (!claimed) return 0;
  const head = await db
    .selectFrom('balance_entry')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  const upTo = head?.id ?? 0;
  const partners = await db
    .selectFrom('balance_entry as e')
    .innerJoin('partner as p', 'p.id', 'e.partner_id')
    .select(['e.partner_id', 'p.program_id'])
    .distinct()
    .where('e.id', '>', claimed.statement_swept_entry_id)
    .where('e.id', '<=', upTo)
    .execute();
  let signed = 0;
  for (const { partner_id: partnerId, program_id: programId } of partners) {
    const outcome = await deps.em.transactional((em) =>
      signStatementCheckpoint(em, deps.sealer, { now, programId, partnerId, reason: 'schedule' }),
    );
    if (outcome.status === 'signed') signed++;
    if (outcome.status === 'refused')
      deps.log.error({ programId, partnerId, reason: outcome.reason }, 'statement checkpoint refused: ledger changed');
  }
  await db.updateTable('service_instance').set({ statement_swept_entry_id: upTo }).where('id', '=', 1).execute();
  return signed;
}
