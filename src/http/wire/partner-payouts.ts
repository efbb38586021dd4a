import { z } from 'zod';
import type { IPayout } from '../../core/entities/payout.ts';
import { PAYOUT_STATUSES } from '../../core/shared/vocabulary.ts';

// A partner's own payout request as the portal shows it (routes/partner.ts).

const int = z.number().int();

export const partnerPayoutBody = z.strictObject({
  payout: z.strictObject({
    id: int,
    currency: z.string().length(3),
    status: z.enum(PAYOUT_STATUSES),
    requested_cents: int.nullable().meta({ description: 'The amount asked for (null: everything available)' }),
    amount_cents: int.meta({ description: 'The most it pays (reduced to fit if the balance falls)' }),
    created_at: z.iso.datetime(),
  }),
});
export type PartnerPayoutBody = z.infer<typeof partnerPayoutBody>;

export const partnerPayoutToWire = (p: IPayout): PartnerPayoutBody => ({
  payout: {
    id: p.id,
    currency: p.currency,
    status: p.status,
    requested_cents: p.requestedCents ?? null,
    amount_cents: p.amountCents,
    created_at: p.createdAt.toISOString(),
  },
});
