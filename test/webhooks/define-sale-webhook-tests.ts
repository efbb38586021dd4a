/**
 * End-to-end sale scenarios every provider must pass (issue 4), written once against the
 * ProviderKit interface and registered by each provider's test file.
 */
import { describe, expect, test } from 'vitest';
import { storeWebhookEvent } from '../../src/core/webhooks/webhook-inbox.ts';
import type { WebhookHarness } from './webhook-harness.ts';
import { keysOf, newRef } from './scenario-steps.ts';

export function defineSaleWebhookTests(w: WebhookHarness): void {
  const { kit } = w;

  describe(`${kit.provider}: sales`, () => {
    test('checkout/order → 200 at once, then a sale with its commission', async () => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const payment = kit.payment({ ref: newRef('ok'), amountCents: 10000, keys: keysOf(f, customer) });
      const res = await w.send(f.programId, payment.event);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, id: expect.any(Number), duplicate: false, status: 'pending' });
      const row = await w.waitForInbox(f.programId, res.body.id, 'processed');
      expect(row).toMatchObject({
        provider: kit.provider,
        attempts: 1,
        error: null,
        outcome: [{ kind: 'attributed', commissionCents: 1000 }],
      });

      const sale = await w.sale(f.programId, payment.transactionId);
      expect(sale).toMatchObject({
        amount_cents: 10000,
        currency: 'USD',
        sale_type: 'payment',
        is_recurring: false,
        provider: kit.provider,
        provider_payment_id: expect.any(String),
        partner: f.partnerId,
        refunded_cents: 0,
      });
      const commissions = await w.list(f.programId, 'commissions');
      expect(commissions).toHaveLength(1);
      expect(commissions[0]).toMatchObject({
        sale: sale!.id,
        partner: f.partnerId,
        amount_cents: 1000,
        currency: 'USD',
        status: 'pending',
        reversed_cents: 0,
      });
    });

    test('checkout that skipped lead tracking: customer key + click id bind an implicit lead', async () => {
      const f = await w.newProgram();
      const click = await w.h.request('/api/v1/track/click', {
        body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
      });
      const customerKey = `implicit-${newRef('c')}`;
      const payment = kit.payment({
        ref: newRef('imp'),
        amountCents: 5000,
        keys: { clickId: click.body.click_id, customerKey, programId: f.programId },
      });
      const res = await w.send(f.programId, payment.event);
      await w.waitForInbox(f.programId, res.body.id, 'processed');
      expect(await w.sale(f.programId, payment.transactionId)).toMatchObject({
        partner: f.partnerId,
        click_id: click.body.click_id,
      });
      expect((await w.list(f.programId, 'customers')).map((c) => c.customer_key)).toContain(customerKey);
    });

    test('two checkouts of one customer who skipped lead tracking, delivered at the same time → both attributed', async () => {
      const f = await w.newProgram();
      const click = await w.h.request('/api/v1/track/click', {
        body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
      });
      const keys = { clickId: click.body.click_id, customerKey: `implicit-${newRef('c')}`, programId: f.programId };
      const payments = [
        kit.payment({ ref: newRef('ia'), amountCents: 5000, keys }),
        kit.payment({ ref: newRef('ib'), amountCents: 7000, keys }),
      ];
      const res = await Promise.all(payments.map((p) => w.send(f.programId, p.event)));
      for (const r of res) await w.waitForInbox(f.programId, r.body.id, 'processed');
      for (const p of payments)
        expect(await w.sale(f.programId, p.transactionId), p.transactionId).toMatchObject({ partner: f.partnerId });
      expect((await w.list(f.programId, 'customers')).filter((c) => c.customer_key === keys.customerKey)).toHaveLength(
        1,
      );
    });

    test('metadata naming another program → 200, inbox row ignored, no sale', async () => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const payment = kit.payment({
        ref: newRef('mm'),
        amountCents: 10000,
        keys: { ...keysOf(f, customer), programId: f.programId + 1000 },
      });
      const res = await w.send(f.programId, payment.event);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ received: true, status: 'ignored' });
      const [row] = await w.inbox(f.programId);
      expect(row).toMatchObject({ id: res.body.id, status: 'ignored', error: 'program_mismatch' });
      expect(await w.list(f.programId, 'sales')).toEqual([]);
    });

    test('an event type we do not handle → 200, recorded as ignored', async () => {
      const f = await w.newProgram();
      const event = kit.unhandled();
      const res = await w.send(f.programId, event);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ received: true, duplicate: false, status: 'ignored' });
      const [row] = await w.inbox(f.programId);
      expect(row).toMatchObject({ status: 'ignored', error: 'unhandled_event_type', processed_at: expect.any(String) });
      expect(await w.list(f.programId, 'sales')).toEqual([]);
    });

    test('acknowledged but never enqueued (queue down at the edge) → the inbox sweeper enqueues it', async () => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const payment = kit.payment({ ref: newRef('swept'), amountCents: 10000, keys: keysOf(f, customer) });
      // The edge's durable half only: verified and stored, the enqueue never happened.
      const receivedAt = w.h.clock.now;
      const event = w.h.ctx.providers[kit.provider].normalise(payment.event, {
        programId: f.programId,
        receivedAt: receivedAt.toISOString(),
      });
      const stored = await storeWebhookEvent(w.h.ctx.deps(), {
        provider: kit.provider,
        programId: f.programId,
        event,
        payload: payment.event,
        receivedAt,
      });
      expect(stored).toMatchObject({ duplicate: false, status: 'pending' });
      // The sweeper takes pending rows older than one interval.
      w.h.clock.now = new Date(receivedAt.getTime() + 2 * w.h.ctx.config.SWEEP_INTERVAL_MS);
      try {
        await w.waitForInbox(f.programId, stored.inboxId, 'processed');
      } finally {
        w.h.clock.now = receivedAt;
      }
      expect(await w.sale(f.programId, payment.transactionId)).toMatchObject({ partner: f.partnerId });
    });

    test('the same event 5 times sequentially and another 5 times concurrently → one sale each', async () => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const a = kit.payment({ ref: newRef('seq'), amountCents: 10000, keys: keysOf(f, customer) });
      const b = kit.payment({ ref: newRef('par'), amountCents: 20000, keys: keysOf(f, customer) });
      const bodyA = JSON.stringify(a.event);
      const sequential = [];
      for (let i = 0; i < 5; i++) sequential.push(await w.send(f.programId, bodyA));
      const concurrent = await Promise.all(Array.from({ length: 5 }, () => w.send(f.programId, b.event)));

      for (const deliveries of [sequential, concurrent]) {
        expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200, 200]);
        expect(new Set(deliveries.map((d) => d.body.id)).size).toBe(1);
        expect(deliveries.filter((d) => !d.body.duplicate)).toHaveLength(1);
        await w.waitForInbox(f.programId, deliveries[0]!.body.id, 'processed');
      }
      // One more redelivery after processing is still a no-op.
      expect((await w.send(f.programId, bodyA)).body).toMatchObject({ duplicate: true, status: 'processed' });
      expect(await w.inbox(f.programId)).toHaveLength(2);
      const sales = await w.list(f.programId, 'sales');
      expect(sales.map((s) => s.transaction_id).sort()).toEqual([a.transactionId, b.transactionId].sort());
      expect((await w.list(f.programId, 'commissions')).map((c) => c.amount_cents).sort()).toEqual([1000, 2000]);
    });

    test('test-mode payment → a test event, nothing in sales or commissions', async () => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const payment = kit.payment({ ref: newRef('test'), amountCents: 10000, keys: keysOf(f, customer), test: true });
      // Polar and Dodo payloads look alike in both modes: their sandbox endpoint's `test` secret decides.
      const body = JSON.stringify(payment.event);
      const res = await w.send(
        f.programId,
        body,
        payment.secret ? kit.sign(body, w.h.clock.now, payment.secret) : undefined,
      );
      expect(res.status).toBe(200);
      const row = await w.waitForInbox(f.programId, res.body.id, 'processed');
      expect(row.outcome).toEqual([{ kind: 'test', eventId: expect.any(Number), programId: f.programId }]);
      expect(await w.list(f.programId, 'sales')).toEqual([]);
      expect(await w.list(f.programId, 'commissions')).toEqual([]);
      expect(await w.list(f.programId, 'test-events')).toEqual([
        expect.objectContaining({ kind: 'sale', transaction_id: payment.transactionId, amount_cents: 10000 }),
      ]);
    });

    test('renewal → recurring sale attributed by subscription, commission per program policy', async () => {
      for (const policy of ['lifetime', 'one_time'] as const) {
        const f = await w.newProgram({ recurring_policy: policy });
        const customer = await w.newCustomer(f);
        const subscriptionId = `sub_${newRef('sub')}`;
        const keys = keysOf(f, customer);
        const start = kit.subscriptionStart({ ref: newRef('first'), subscriptionId, amountCents: 3000, keys });
        // The first renewal still carries the tracker keys (all three providers repeat them)...
        const renewal1 = kit.renewal({ ref: newRef('ren'), subscriptionId, amountCents: 3000, keys });
        // ...the second carries none: only its subscription can attribute it.
        const renewal2 = kit.renewal({ ref: newRef('ren'), subscriptionId, amountCents: 3000, keys: null });
        for (const p of [start, renewal1, renewal2]) {
          const res = await w.send(f.programId, p.event);
          expect(res.status).toBe(200);
          await w.waitForInbox(f.programId, res.body.id, 'processed');
        }
        const first = await w.sale(f.programId, start.transactionId);
        const r1 = await w.sale(f.programId, renewal1.transactionId);
        const r2 = await w.sale(f.programId, renewal2.transactionId);
        expect(first).toMatchObject({ partner: f.partnerId, is_recurring: false });
        for (const r of [r1, r2])
          expect(r, policy).toMatchObject({
            partner: f.partnerId,
            is_recurring: true,
            sale_type: 'subscription',
            amount_cents: 3000,
          });
        expect(r2!.subscription_id).toBe(r1!.subscription_id);
        expect((await w.commissionOf(f.programId, first!.id))?.amount_cents).toBe(300);
        const r1Commission = await w.commissionOf(f.programId, r1!.id);
        const r2Commission = await w.commissionOf(f.programId, r2!.id);
        if (policy === 'lifetime') {
          expect([r1Commission?.amount_cents, r2Commission?.amount_cents]).toEqual([300, 300]);
        } else {
          expect(r2Commission).toBeUndefined();
          // Lemon Squeezy's first renewal cannot follow its order yet: see the known gap in lemonsqueezy.test.ts.
          if (kit.provider !== 'lemonsqueezy') expect(r1Commission).toBeUndefined();
        }
      }
    });
  });
}
