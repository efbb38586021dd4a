import { expect } from 'vitest';
import { bearer, clickAndLead, type Fixture, type Harness } from './harness.ts';

/** Sales, rules and partners for the reward-rules tests (test/api/reward-rules.test.ts, rules-preview.test.ts). */
export function rewardSales(h: Harness) {
  let seq = 0;
  return {
    /** A live sale of 100.00 (unless `body` says otherwise) by `customerKey`, with a fresh transaction id. */
    async saleOf(f: Fixture, customerKey: string, body: Record<string, unknown> = {}) {
      const transactionId = `rw-${++seq}`;
      const r = await h.request('/api/v1/track/sale', {
        body: { transaction_id: transactionId, amount_cents: 10_000, customer_key: customerKey, ...body },
        headers: bearer(f.liveKey),
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return { ...(r.body as { sale_id: number; commission_id: number | null }), transactionId };
    },
    setRules: (f: Fixture, rules: unknown) => h.admin('PATCH', `/programs/${f.programId}`, { reward_rules: rules }),
    /** A second partner of the program with a bound customer. */
    async otherPartner(f: Fixture, customerKey: string) {
      const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, {
        code: `${f.partnerCode}-${customerKey}`,
        name: `Partner ${customerKey}`,
      });
      await clickAndLead(h, f, customerKey, partner.code);
      return partner as { id: number; code: string };
    },
  };
}
