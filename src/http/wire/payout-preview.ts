import { z } from 'zod';
import type { PayoutPreview } from '../../core/payouts/preview-payout-run.ts';
import { CURRENCIES, PAYOUT_METHOD_KINDS, PAYOUT_RAILS, PAYOUT_SKIP_REASONS } from '../../core/shared/vocabulary.ts';

// A payout run's preview (routes/admin-payout-runs.ts): who it would pay, who it would pass by and why.

const int = z.number().int();

export const payoutPreviewQuery = z.object({
  currency: z.enum(CURRENCIES).optional().meta({ description: 'Omitted: every currency' }),
  rail: z.enum(PAYOUT_RAILS).optional().meta({ description: "Omitted: the program's rail" }),
});

export const payoutPreviewBody = z.strictObject({
  rail: z.enum(PAYOUT_RAILS),
  credited_before: z.iso.datetime().meta({ description: 'A run now pays commissions credited before this' }),
  totals: z
    .array(z.strictObject({ currency: z.string().length(3), paid: int, skipped: int, payable_cents: int }))
    .meta({ description: 'Per currency: partners paid and passed by, and what the run would pay' }),
  partners: z.array(
    z.strictObject({
      partner_id: int,
      name: z.string(),
      code: z.string(),
      currency: z.string().length(3),
      method: z.enum(PAYOUT_METHOD_KINDS).nullable().meta({ description: "The kind of the partner's payout details" }),
      outcome: z.enum(['paid', 'skipped']),
      skip_code: z.enum(PAYOUT_SKIP_REASONS).nullable(),
      skip_reason: z.string().nullable(),
      balance_cents: int,
      payable_cents: int.meta({ description: 'What a payout would pay now (due commissions less what is owed back)' }),
      not_due_cents: int.meta({ description: "Credited within the schedule's hold_days: a later run pays it" }),
      pending_cents: int.meta({ description: 'Not credited yet: waiting for the hold period or an approval' }),
      review_held_cents: int.meta({ description: 'Held for review (fraud rules or a dispute)' }),
      owed_cents: int.meta({ description: 'Owed back from refunds of commissions already paid, netted first' }),
      minimum_cents: int,
      request_id: int.nullable().meta({ description: "The partner's open payout (request) the run would pay" }),
    }),
  ),
});
export type PayoutPreviewBody = z.infer<typeof payoutPreviewBody>;

export function payoutPreviewToWire(p: PayoutPreview): PayoutPreviewBody {
  const totals = new Map<string, PayoutPreviewBody['totals'][number]>();
  for (const r of p.rows) {
    const t = totals.get(r.currency) ?? { currency: r.currency, paid: 0, skipped: 0, payable_cents: 0 };
    if (r.outcome === 'paid') {
      t.paid++;
      t.payable_cents += r.payableCents;
    } else t.skipped++;
    totals.set(r.currency, t);
  }
  return {
    rail: p.rail,
    credited_before: p.creditedBefore.toISOString(),
    totals: [...totals.values()],
    partners: p.rows.map((r) => ({
      partner_id: r.partnerId,
      name: r.name,
      code: r.code,
      currency: r.currency,
      method: r.method,
      outcome: r.outcome,
      skip_code: r.skip?.code ?? null,
      skip_reason: r.skip?.reason ?? null,
      balance_cents: r.balanceCents,
      payable_cents: r.payableCents,
      not_due_cents: r.notDueCents,
      pending_cents: r.pendingCents,
      review_held_cents: r.reviewHeldCents,
      owed_cents: r.owedCents,
      minimum_cents: r.minimumCents,
      request_id: r.requestId,
    })),
  };
}
