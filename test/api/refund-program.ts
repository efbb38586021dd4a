/**
 * The program the refund API tests run against (10% commission, one-time recurring policy, customer
 * `alice` referred) and their steps: a refund call, a fresh sale, a commission, the partner's account.
 */
import { waitFor } from '../helpers/wait-for.ts';
import { bearer, clickAndLead, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';

export async function createRefundProgram(h: Harness): Promise<Fixture> {
  const f = await createProgramFixture(h, { commission_rate_bps: 1000, recurring_policy: 'one_time' });
  await clickAndLead(h, f, 'alice');
  return f;
}

/** Steps against program `program()` (read at call time, once the program exists). */
export function refundSteps(h: Harness, program: () => Fixture) {
  let seq = 0;
  const refund = (body: Record<string, unknown>, key = program().liveKey) =>
    h.request('/api/v1/track/refund', { body, headers: bearer(key) });
  /** A sale of `amount` with a 10% commission; returns ids. */
  async function newSale(amount = 10_000, extra: Record<string, unknown> = {}) {
    const transaction_id = `rtx-${++seq}`;
    const r = await h.request('/api/v1/track/sale', {
      body: { transaction_id, amount_cents: amount, customer_key: 'alice', ...extra },
      headers: bearer(program().liveKey),
    });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return { transaction_id, saleId: r.body.sale_id as number, commissionId: r.body.commission_id as number | null };
  }
  const commission = async (id: number) =>
    (await h.admin('GET', `/programs/${program().programId}/commissions?limit=500`)).commissions.find(
      (c: any) => c.id === id,
    );
  const account = () => h.admin('GET', `/programs/${program().programId}/partners/${program().partnerId}/account`);
  const usd = async () => (await account()).balances.find((b: any) => b.currency === 'USD')?.balance_cents ?? 0;
  /** Waits until `n` notifications were sent; throws on timeout (an assertion must never pass without waiting). */
  const waitForSent = (n: number) => waitFor(() => h.sent.length >= n);
  return { refund, newSale, commission, account, usd, waitForSent };
}
