import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps } from './deps.ts';
import type { LinkJob } from './jobs/link-job.ts';
import { PaymentLink } from './entities/payment-link.ts';

export type LinkResult = { kind: 'linked' | 'already_linked'; alias: string; transactionId: string };

/**
 * Stores that `alias` names the sale `transactionId` (see PaymentLink). Idempotent: the unique key
 * (program, alias) decides, so redeliveries and replays change nothing. The sale need not exist
 * yet: providers do not order their webhooks.
 */
export async function linkPayment(deps: CoreDeps, job: LinkJob): Promise<LinkResult> {
  const rows = await deps.em.execute<Array<{ id: number }>>(
    `insert into payment_link (program_id, alias, transaction_id, provider, created_at) values (?, ?, ?, ?, ?)
     on conflict (program_id, alias) do nothing returning id`,
    [job.programId, job.alias, job.transactionId, job.provider, new Date(job.receivedAt)],
  );
  return { kind: rows.length ? 'linked' : 'already_linked', alias: job.alias, transactionId: job.transactionId };
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
