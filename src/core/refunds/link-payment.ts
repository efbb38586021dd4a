import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps } from '../deps.ts';
import type { LinkJob } from '../jobs/link-job.ts';
import { PaymentLink } from '../entities/payment-link.ts';
import { typedSql } from '../db/sql.ts';

export type LinkResult = { kind: 'linked' | 'already_linked'; alias: string; transactionId: string };

/**
 * Stores that `alias` names the sale `transactionId` (see PaymentLink). Idempotent: the unique key
 * (program, alias) decides, so redeliveries and replays change nothing. The sale need not exist
 * yet: providers do not order their webhooks.
 */
export async function linkPayment(deps: CoreDeps, job: LinkJob): Promise<LinkResult> {
  const inserted = await typedSql(deps.em)
    .insertInto('payment_link')
    .values({
      program_id: job.programId,
      alias: job.alias,
      transaction_id: job.transactionId,
      provider: job.provider,
      created_at: new Date(job.receivedAt),
    })
    .onConflict((oc) => oc.columns(['program_id', 'alias']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return { kind: inserted ? 'linked' : 'already_linked', alias: job.alias, transactionId: job.transactionId };
}

/** The sale `transaction_id` a provider alias is linked to, or `null`. */
export async function findLinkedTransactionId(
  em: EntityManager,
  programId: number,
  alias: string,
): Promise<string | null> {
  const link = await em.findOne(PaymentLink, { program: programId, alias }, { fields: ['transactionId'] });
  return link?.transactionId ?? null;
}
