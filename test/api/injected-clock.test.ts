import { beforeAll, describe, expect, test } from 'vitest';
import { bearer, clickAndLead, createProgramFixture, useHarness, type Fixture } from '../helpers/harness.ts';

const h = useHarness();
let f: Fixture;

beforeAll(async () => {
  // Far from the wall clock: a value taken from it instead would be years off.
  h.clock.now = new Date(Date.UTC(2031, 2, 4, 5, 6, 7, 890));
  f = await createProgramFixture(h, { commission_rate_bps: 1000 });
  await clickAndLead(h, f, 'clocked');
});

/** One column of one row, read as milliseconds since the epoch. */
async function timeOf(table: 'commission' | 'partner_code', column: string, id: number): Promise<number> {
  const [row] = await h.ctx
    .deps()
    .em.getConnection()
    .execute(`select (extract(epoch from ${column}) * 1000)::bigint::text as ms from ${table} where id = ?`, [id]);
  return Number(row!.ms);
}

describe('use-cases write the injected clock’s time', () => {
  test('a refund stamps its commission’s updated_at, and a retired code its disabled_at, with the moved clock', async () => {
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'clocked-sale', amount_cents: 10_000, customer_key: 'clocked' },
      headers: bearer(f.liveKey),
    });
    expect(sale.status).toBe(200);
    h.clock.advanceDays(3);
    const refund = await h.request('/api/v1/track/refund', {
      body: { transaction_id: 'clocked-sale', refund_amount_cents: 2_500, refund_id: 'clocked-1' },
      headers: bearer(f.liveKey),
    });
    expect(refund.body).toMatchObject({ status: 'refunded', deductionAmount: 250 });
    expect(await timeOf('commission', 'updated_at', sale.body.commission_id)).toBe(h.clock.now.getTime());

    h.clock.advanceDays(2);
    const created = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/codes`, { code: 'TICK' });
    const retired = await h.admin('POST', `/programs/${f.programId}/partner-codes/${created.code.id}/disable`);
    expect(retired.code.disabled_at).toBe(h.clock.now.toISOString());
    expect(await timeOf('partner_code', 'disabled_at', created.code.id)).toBe(h.clock.now.getTime());
  });
});
