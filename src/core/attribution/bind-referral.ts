import { randomUUID } from 'node:crypto';
import type { CoreDeps } from '../deps.ts';
import type { SaleJob } from '../jobs/sale-job.ts';
import { buildLeadJob } from '../jobs/lead-job.ts';
import { Partner } from '../entities/partner.ts';
import { Click } from '../entities/click.ts';
import { bindLead } from './bind-lead.ts';

/**
 * What a sale's referral code did. `attributed` has the fields of resolve-attribution.ts's
 * `Attribution` (written out here: that module calls this one, and a type import back would be
 * a cycle); `not_referred` says why the code bound nothing (added to a `no_attribution`).
 */
export type ReferralOutcome =
  | {
      kind: 'attributed';
      customerId: number;
      partnerId: number;
      clickId: string;
      clickAt: null;
      firstSaleAt: null;
      held: false;
      conflict: null;
      via: 'customer_key';
      partnerCodeId: null;
    }
  | { kind: 'needs_writes' }
  | { kind: 'not_referred'; reason: string };

/**
 * A sale that carries the referral code its payment came with (`SaleJob.referralCode`: an x402
 * request's `X-Referral`), when no click attributes it (the caller asks only then, so a customer
 * already bound to a partner keeps that partner, whatever code comes along): records a click of
 * the code's partner and binds `customerKey` to it as a keyed lead would, in the sale's
 * transaction, so the sale and every later sale of the customer are that partner's. A referral
 * arrives with the keyed sale, not as a keyless click, so no per-client click limit applies.
 * A code that names no partner of the program binds nothing: the sale resolves as without it.
 * `readOnly`: answers `needs_writes` instead of writing.
 */
export async function bindReferral(
  deps: CoreDeps,
  programId: number,
  job: SaleJob,
  o: { readOnly?: boolean },
): Promise<ReferralOutcome | null> {
  const code = job.referralCode;
  if (!code) return null;
  if (!job.customerKey)
    return { kind: 'not_referred', reason: 'a referral code binds the customer_key, and the sale has none' };
  const partner = await deps.em.findOne(Partner, { program: programId, code }, { fields: ['id'] });
  if (!partner) return { kind: 'not_referred', reason: `the referral code "${code}" names no partner of this program` };
  if (o.readOnly) return { kind: 'needs_writes' };
  const now = new Date(job.receivedAt);
  const link = job.referralUrl ?? `?aff=${encodeURIComponent(code)}`;
  const click = deps.em.create(Click, {
    id: randomUUID(),
    program: programId,
    partner: partner.id,
    affiliateUrl: link,
    pageUrl: job.referralUrl ?? null,
    clickedAt: now,
    createdAt: now,
  });
  await deps.em.flush();
  // bindLead's own transaction is a savepoint in the sale's: a concurrent sale of the same new
  // customer that inserted it first makes it bind again, to the row that now exists.
  const lead = await bindLead(
    deps,
    buildLeadJob({
      programId,
      customerKey: job.customerKey,
      clickId: click.id,
      eventName: 'referral',
      receivedAt: job.receivedAt,
    }),
  );
  if (lead.clickId !== click.id)
    return { kind: 'not_referred', reason: "the customer's first click keeps it (first_click attribution)" };
  return {
    kind: 'attributed',
    customerId: lead.customerId,
    partnerId: partner.id,
    clickId: click.id,
    // The referral came with the payment itself: no click-to-sale time for fast_conversion to judge.
    clickAt: null,
    firstSaleAt: null,
    held: false,
    conflict: null,
    via: 'customer_key',
    partnerCodeId: null,
  };
}
