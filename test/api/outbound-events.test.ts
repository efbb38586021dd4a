/**
 * Outbound events end to end, both modes: a real HTTP receiver verifies every delivery with the
 * `standardwebhooks` package over the raw body; retries keep the webhook-id. Rotation, tenancy and
 * disabling: outbound-endpoints.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { bearer, clickAndLead, createProgramFixture } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { useOutboundReceiver } from './outbound-receiver.ts';

const { h, plans, verifies, at, endpoint, sale } = useOutboundReceiver();

describe('outbound events', () => {
  test('every event type is delivered, signed and verifiable; secrets are shown once', async () => {
    const f = await createProgramFixture(h, { reward_rules: { lead: { currency: 'USD', cents: 300 } } });
    const ep = await endpoint(f);
    expect(ep.secret).toMatch(/^whsec_/);
    const listed = await h.admin('GET', `/programs/${f.programId}/event-endpoints`);
    expect(JSON.stringify(listed)).not.toContain(ep.secret);

    const { partner } = await h.admin('POST', `/programs/${f.programId}/partners`, { code: `ev${ep.id}`, name: 'P2' });
    await clickAndLead(h, f, 'cust-all');
    const sold = await sale(f, 'cust-all');
    const s = sold.body;
    await h.admin('POST', `/programs/${f.programId}/commissions/${s.commission_id}/approve`);
    const { payout } = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, {
      currency: 'USD',
    });
    await h.admin('POST', `/programs/${f.programId}/payouts/${payout.id}/pay`);
    const refund = await h.request('/api/v1/track/refund', {
      body: { transaction_id: sold.transactionId, refund_amount_cents: 1000, refund_id: 're_1' },
      headers: bearer(f.liveKey),
    });
    expect(refund.body).toMatchObject({ success: true, status: 'refunded' });

    const want = [
      'partner.created',
      'lead.created',
      'sale.created',
      'commission.created',
      'payout.created',
      'payout.paid',
      'commission.updated',
    ];
    await waitFor(() => {
      const types = new Set(at(ep.path).map((r) => r.type));
      return want.every((t) => types.has(t)) && at(ep.path).filter((r) => r.type === 'commission.updated').length >= 3;
    });
    for (const r of at(ep.path)) {
      expect(verifies(ep.secret, r)).toBe(true);
      expect(r.headers['webhook-id']).toMatch(/^evt_[0-9a-f]{32}$/);
    }
    const of = (type: string) => at(ep.path).filter((r) => r.type === type);
    expect(of('partner.created')[0]!.data).toMatchObject({ id: partner.id, code: partner.code });
    expect(of('lead.created')[0]!.data).toMatchObject({ customer_key: 'cust-all', partner_id: f.partnerId });
    expect(of('sale.created')[0]!.data).toMatchObject({
      id: s.sale_id,
      amount_cents: 10_000,
      currency: 'USD',
      partner_id: f.partnerId,
    });
    const created = of('commission.created').map((r) => r.data);
    expect(created.map((c) => c.id)).toContain(s.commission_id);
    expect(created.find((c) => c.id === s.commission_id)).toMatchObject({ amount_cents: 1000, status: 'pending' });
    expect(created.some((c) => c.lead_customer_id !== null && c.amount_cents === 300)).toBe(true);
    const changes = of('commission.updated')
      .filter((r) => r.data.id === s.commission_id)
      .map((r) => r.data.change);
    expect(changes.sort()).toEqual(['approved', 'paid', 'refunded']); // retries may reorder deliveries
    expect(of('payout.paid')[0]!.data).toMatchObject({ id: payout.id, status: 'paid', currency: 'USD' });
    expect(of('payout.paid')[0]!.data.commission_ids).toContain(s.commission_id);

    await waitFor(async () => {
      const { deliveries } = await h.admin('GET', `/programs/${f.programId}/event-endpoints/${ep.id}/deliveries`);
      return deliveries.length >= want.length && deliveries.every((d: any) => d.status === 'delivered');
    });
  });

  test("a payout run's payout: payout.created processing, then payout.failed with its commissions payable again", async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['payout.created', 'payout.failed', 'commission.updated']);
    await clickAndLead(h, f, 'cust-run');
    const s = (await sale(f, 'cust-run')).body;
    await h.admin('POST', `/programs/${f.programId}/commissions/${s.commission_id}/approve`);
    const run = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
    const payoutId = run.payouts[0].id;
    await h.admin('POST', `/programs/${f.programId}/payouts/${payoutId}/fail`, { reason: 'bank refused' });
    const of = (type: string) => at(ep.path).filter((r) => r.type === type);
    await waitFor(() => of('payout.failed').length === 1 && of('commission.updated').length >= 2);
    for (const r of at(ep.path)) expect(verifies(ep.secret, r)).toBe(true);
    expect(of('payout.created')[0]!.data).toMatchObject({ id: payoutId, status: 'processing', rail: 'manual' });
    expect(of('payout.failed')[0]!.data).toMatchObject({
      id: payoutId,
      status: 'failed',
      failure_reason: 'bank refused',
      commission_ids: [s.commission_id],
    });
    const failed = of('commission.updated').find((r) => r.data.change === 'payout_failed');
    expect(failed!.data).toMatchObject({ id: s.commission_id, status: 'approved', payout_id: payoutId });
  });

  test('a 500 then success is retried under the same webhook-id; the delivery records both attempts', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['sale.created']);
    plans.set(ep.path, [500]);
    await clickAndLead(h, f, 'cust-retry');
    await sale(f, 'cust-retry');
    await waitFor(() => at(ep.path).length >= 2);
    const [first, second] = at(ep.path);
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
    expect(first!.body).toBe(second!.body);
    expect(verifies(ep.secret, second!)).toBe(true);
    const d = await waitFor(async () => {
      const { deliveries } = await h.admin('GET', `/programs/${f.programId}/event-endpoints/${ep.id}/deliveries`);
      return deliveries[0]?.status === 'delivered' && deliveries[0];
    });
    expect(d).toMatchObject({ attempts: 2, last_status_code: 200, last_response_excerpt: 'ok' });
  });

  test('a receiver that hangs past the timeout is retried', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['sale.created']);
    plans.set(ep.path, ['hang']);
    await clickAndLead(h, f, 'cust-hang');
    await sale(f, 'cust-hang');
    await waitFor(() => at(ep.path).length >= 2);
    expect(at(ep.path)[0]!.headers['webhook-id']).toBe(at(ep.path)[1]!.headers['webhook-id']);
    await waitFor(async () => {
      const { deliveries } = await h.admin('GET', `/programs/${f.programId}/event-endpoints/${ep.id}/deliveries`);
      return deliveries[0]?.status === 'delivered' && deliveries[0].attempts === 2;
    });
  });
});
