/**
 * The delivery-order property: generated scenarios (one sale, partial and full refunds, a dispute
 * and its outcome, duplicates and redeliveries, all in any order) and an independent model of what
 * they must leave behind, written as plain arithmetic over the scenario (docs/providers.md: refunds
 * from two sources, parked refunds, each provider's disputes; docs/commissions.md: the rate).
 */
import fc from 'fast-check';

/**
 * How a provider reports what the scenario does:
 * - `refunds`: `each` (every refund its own id and amount), `cumulative` (a running total per
 *   order, Lemon Squeezy) or `api` (no provider refunds: `POST /track/refund`, never parked);
 * - `disputes`: which events a dispute and its outcome become, null without disputes.
 */
export type Traits = {
  refunds: 'each' | 'cumulative' | 'api';
  disputes: 'stripe' | 'paddle' | 'dodo' | 'creem' | null;
  /**
   * What else reports a refund: `list` (Stripe: a reissued refund comes as `charge.refunded`, whose
   * list holds every refund so far) or `totals` (Polar: in some scenarios every refund is also
   * reported by `order.refunded`, the order's running total through it).
   */
  also?: 'list' | 'totals';
  minSaleCents: number;
  maxSaleCents: number;
};

/** One event the provider (or the merchant's backend) sends; `stage` picks the provider's event type. */
export type Spec =
  | { role: 'sale' }
  | { role: 'refund'; key: string; amountCents: number; totalCents: number }
  /** Polar's `order.refunded`: the running total through refund number `through`. */
  | { role: 'total'; key: string; through: number; totalCents: number }
  | { role: 'chargeback'; key: string; amountCents: number; stage: 'opened' | 'lost' }
  /** A won dispute: never re-credits; asks the advertiser to review once if its chargeback applied. */
  | { role: 'won'; key: string; stage: 'reinstated' | 'closed' | 'reverse'; reviewKey: string }
  /** Stripe's `charge.dispute.closed` with status lost: ignored. */
  | { role: 'ignored'; key: string; stage: 'closed_lost' };

/**
 * A copy of an event: `redelivery` resends the same bytes and headers; `reissue` is a new envelope
 * (new event id). An event's first delivery in the order builds it, whatever its label.
 */
export type Copy = 'redelivery' | 'reissue';
export type Delivery = { spec: number; copy: Copy };

export type Scenario = {
  saleCents: number;
  specs: Spec[];
  /** Every delivery, in the order sent; an event's first delivery builds it. */
  order: Delivery[];
  /** The commission is approved (credited) right after this delivery, when its sale is recorded by then. */
  approveAfter: number | null;
};

const RATE_BPS = 1000;
export const PROGRAM_RATE_BPS = RATE_BPS;

/** Half-up division of non-negative integers. */
const roundHalfUp = (num: number, den: number) => Math.floor((2 * num + den) / (2 * den));

function disputeSpecs(traits: Traits, amountCents: number, outcome: 'open' | 'won' | 'lost'): Spec[] {
  const key = 'dp';
  const opened: Spec = { role: 'chargeback', key, amountCents, stage: 'opened' };
  switch (traits.disputes) {
    case 'stripe':
      if (outcome === 'won')
        return [
          opened,
          { role: 'won', key, stage: 'reinstated', reviewKey: key },
          { role: 'won', key, stage: 'closed', reviewKey: key },
        ];
      return outcome === 'lost' ? [opened, { role: 'ignored', key, stage: 'closed_lost' }] : [opened];
    case 'paddle':
      return outcome === 'won' ? [opened, { role: 'won', key, stage: 'reverse', reviewKey: 'dp-reverse' }] : [opened];
    case 'dodo':
      if (outcome === 'won') return [opened, { role: 'won', key, stage: 'closed', reviewKey: key }];
      return outcome === 'lost' ? [opened, { ...opened, stage: 'lost' }] : [opened];
    case 'creem':
      return [opened];
    default:
      return [];
  }
}

/** Scenarios for a provider with these traits. */
export function scenarios(traits: Traits): fc.Arbitrary<Scenario> {
  return fc.integer({ min: traits.minSaleCents, max: traits.maxSaleCents }).chain((saleCents) => {
    // Mostly partial refunds (a third of the sale at most), some of any size, some of the whole sale.
    const amount = fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: Math.max(1, Math.floor(saleCents / 3)) }) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: saleCents }) },
      { weight: 1, arbitrary: fc.constant(saleCents) },
    );
    const dispute = traits.disputes
      ? fc.option(
          fc.record({
            amountCents: amount,
            outcome: fc.constantFrom('open', 'won', 'lost') as fc.Arbitrary<'open' | 'won' | 'lost'>,
          }),
          { nil: null },
        )
      : fc.constant(null);
    return fc
      .record({
        refunds: fc.array(amount, { maxLength: 3 }),
        dispute,
        copies: fc.array(fc.array(fc.constantFrom<Copy>('redelivery', 'reissue'), { maxLength: 2 }), {
          minLength: 8,
          maxLength: 8,
        }),
        approve: fc.option(fc.nat(), { nil: null }),
        totals: traits.also === 'totals' ? fc.boolean() : fc.constant(false),
      })
      .chain(({ refunds, dispute, copies, approve, totals }) => {
        let total = 0;
        const specs: Spec[] = [{ role: 'sale' }];
        refunds.forEach((amountCents, i) => {
          total = Math.min(saleCents, total + amountCents);
          specs.push({ role: 'refund', key: `r${i}`, amountCents, totalCents: total });
          if (totals) specs.push({ role: 'total', key: `t${i}`, through: i, totalCents: total });
        });
        if (dispute) specs.push(...disputeSpecs(traits, dispute.amountCents, dispute.outcome));
        const deliveries: Delivery[] = [];
        specs.forEach((_, spec) => {
          deliveries.push({ spec, copy: 'redelivery' });
          for (const copy of copies[spec % copies.length]!) deliveries.push({ spec, copy });
        });
        return fc
          .shuffledSubarray(deliveries, { minLength: deliveries.length, maxLength: deliveries.length })
          .map((order) => ({
            saleCents,
            specs,
            order,
            approveAfter: approve === null ? null : approve % order.length,
          }));
      });
  });
}

export type Expected = {
  commissionCents: number;
  refundedCents: number;
  reversedCents: number;
  status: 'pending' | 'approved' | 'refunded' | 'reversed';
  balanceCents: number;
  statement: {
    credits_cents: number;
    reversals_cents: number;
    balance_cents: number;
    unpaid_commissions_cents: number;
  };
  /** Advertiser manual reviews of a won dispute. */
  reviews: number;
};

/**
 * What the scenario must leave, replayed in delivery order: the sale counts once; a provider refund
 * before its sale waits and applies when the sale arrives (an API refund before its sale is refused
 * and lost); each refund id (a running total: its total) applies once, capped at what remains of the
 * sale, nothing once the whole sale is refunded; the commission is reversed in proportion to the
 * cumulative refunded amount (half up; all of it once the whole sale is refunded); a lost dispute
 * reverses like a refund under the dispute's id; a won one re-credits nothing.
 */
export function expected(s: Scenario, traits: Traits): Expected {
  const S = s.saleCents;
  const C = roundHalfUp(S * RATE_BPS, 10_000);
  const reversal = (r: number) => (r >= S ? C : roundHalfUp(C * r, S));
  let recorded = false;
  let refunded = 0;
  const applied = new Set<string>();
  const chargebacks = new Set<string>();
  const reviews = new Set<string>();
  const parked: Spec[] = [];
  let creditedAt: number | null = null;

  const refundSpecs = s.specs.filter((x) => x.role === 'refund');
  const apply = (spec: Spec): void => {
    // A running total (Polar) or a charge's list (Stripe) reports every refund through this one.
    if (spec.role === 'total') return refundSpecs.slice(0, spec.through + 1).forEach(apply);
    if (spec.role === 'refund' && traits.refunds === 'cumulative') {
      refunded = Math.max(refunded, spec.totalCents);
      return;
    }
    if (spec.role !== 'refund' && spec.role !== 'chargeback') return;
    if (applied.has(spec.key) || refunded >= S) return;
    applied.add(spec.key);
    refunded = Math.min(S, refunded + spec.amountCents);
    if (spec.role === 'chargeback') chargebacks.add(spec.key);
  };

  const sent = new Set<number>();
  s.order.forEach((d, i) => {
    const spec = s.specs[d.spec]!;
    const again = sent.has(d.spec);
    sent.add(d.spec);
    // A webhook redelivered (the same bytes, the same event id) is answered as a duplicate and not
    // processed again; an API call is processed every time.
    const apiCall = traits.refunds === 'api' && spec.role === 'refund';
    if (again && d.copy === 'redelivery' && !apiCall) {
      // nothing
    } else if (spec.role === 'sale' && !recorded) {
      recorded = true;
      parked.splice(0).forEach(apply);
    } else if (spec.role === 'refund' || spec.role === 'chargeback' || spec.role === 'total') {
      const listed =
        spec.role === 'refund' && again && d.copy === 'reissue' && traits.also === 'list'
          ? refundSpecs.slice(0, refundSpecs.indexOf(spec) + 1)
          : [spec];
      if (recorded) listed.forEach(apply);
      else if (traits.refunds !== 'api') parked.push(...listed);
    } else if (spec.role === 'won' && recorded) {
      const found = traits.disputes === 'paddle' ? chargebacks.size > 0 : chargebacks.has(spec.key);
      if (found) reviews.add(spec.reviewKey);
    }
    if (i === s.approveAfter && recorded && refunded < S) creditedAt = reversal(refunded);
  });

  const reversed = reversal(refunded);
  const status = refunded >= S ? 'reversed' : refunded > 0 ? 'refunded' : creditedAt !== null ? 'approved' : 'pending';
  const credits = creditedAt === null ? 0 : C - creditedAt;
  const reversals = creditedAt === null ? 0 : reversed - creditedAt;
  return {
    commissionCents: C,
    refundedCents: refunded,
    reversedCents: reversed,
    status,
    balanceCents: credits - reversals,
    statement: {
      credits_cents: credits,
      reversals_cents: reversals,
      balance_cents: credits - reversals,
      unpaid_commissions_cents: credits - reversals,
    },
    reviews: reviews.size,
  };
}
