/**
 * End-to-end refund scenarios every provider must pass (issue 4): cumulative deductions,
 * idempotency, out-of-order delivery and replay; with API refunds and balances in
 * define-refund-ledger-webhook-tests.ts.
 */
import { describe, expect, test } from 'vitest';
import type { WebhookHarness } from './webhook-harness.ts';
import { createScenarioSteps, keysOf, newRef, refundInput } from './scenario-steps.ts';
import { waitFor } from '../helpers/wait-for.ts';

export function defineRefundWebhookTests(w: WebhookHarness): void {
  const { kit } = w;
  const { paidSale, deliverRefund } = createScenarioSteps(w);

  describe(`${kit.provider}: refunds`, () => {
    test('two partial refunds then the rest → exact cumulative deductions, then reversed', async () => {
      const f = await w.newProgram();
      // 9 999 at 10% → commission round(999.9) = 1 000; thirds of the sale are 333.3 each.
      const s = await paidSale(f, 9999);
      expect(s.commission.amount_cents).toBe(1000);
      const steps = [
        // round(1000 × 3333/9999) = 333 → 333
        { amount: 3333, total: 3333, status: 'refunded', deduction: 333, reversed: 333 },
        // round(1000 × 6666/9999) = 667 → 667 − 333 = 334
        { amount: 3333, total: 6666, status: 'refunded', deduction: 334, reversed: 667 },
        // the whole sale → the whole commission: 1000 − 667 = 333
        { amount: 3333, total: 9999, status: 'reversed', deduction: 333, reversed: 1000 },
      ];
      for (const step of steps) {
        const row = await deliverRefund(f, refundInput(s.ref, 9999, step.amount, step.total));
        expect(row.outcome).toEqual([
          expect.objectContaining({ kind: 'applied', status: step.status, deductionCents: step.deduction }),
        ]);
        expect(await w.commissionOf(f.programId, s.sale.id)).toMatchObject({
          status: step.status,
          reversed_cents: step.reversed,
        });
        expect((await w.sale(f.programId, s.transactionId))?.refunded_cents).toBe(step.total);
      }
      expect((await w.list(f.programId, 'refunds')).map((r) => r.deduction_cents).sort()).toEqual([333, 333, 334]);
    });

    test('the same refund 5 times sequentially and another 5 times concurrently → one effect each', async () => {
      const f = await w.newProgram();
      const s = await paidSale(f, 10000);
      const first = JSON.stringify(kit.refund(refundInput(s.ref, 10000, 2000, 2000)));
      const sequential = [];
      for (let i = 0; i < 5; i++) sequential.push(await w.send(f.programId, first));
      await w.waitForInbox(f.programId, sequential[0]!.body.id, 'processed');
      const second = kit.refund(refundInput(s.ref, 10000, 3000, 5000));
      const concurrent = await Promise.all(Array.from({ length: 5 }, () => w.send(f.programId, second)));
      for (const deliveries of [sequential, concurrent]) {
        expect(deliveries.every((d) => d.status === 200)).toBe(true);
        expect(new Set(deliveries.map((d) => d.body.id)).size).toBe(1);
        await w.waitForInbox(f.programId, deliveries[0]!.body.id, 'processed');
      }
      const refunds = await w.list(f.programId, 'refunds');
      expect(refunds.map((r) => r.deduction_cents).sort()).toEqual([200, 300]);
      expect(await w.commissionOf(f.programId, s.sale.id)).toMatchObject({ status: 'refunded', reversed_cents: 500 });
      expect((await w.sale(f.programId, s.transactionId))?.refunded_cents).toBe(5000);
    });

    test('two different refunds of one sale delivered at the same time → both counted once, under the sale lock', async () => {
      const f = await w.newProgram();
      const s = await paidSale(f, 10000);
      const [a, b] = await Promise.all([
        w.send(f.programId, kit.refund(refundInput(s.ref, 10000, 2000, 2000))),
        w.send(f.programId, kit.refund(refundInput(s.ref, 10000, 3000, 5000))),
      ]);
      await w.waitForInbox(f.programId, a.body.id, 'processed');
      await w.waitForInbox(f.programId, b.body.id, 'processed');
      // Per-refund providers add 2000 + 3000; Lemon Squeezy's totals end at 5000 whatever the order.
      expect((await w.sale(f.programId, s.transactionId))?.refunded_cents).toBe(5000);
      expect(await w.commissionOf(f.programId, s.sale.id)).toMatchObject({ status: 'refunded', reversed_cents: 500 });
      const deductions = (await w.list(f.programId, 'refunds')).reduce((sum, r) => sum + r.deduction_cents, 0);
      expect(deductions).toBe(500);
    });

    test('refund before its sale → parked (a durable row), applied once when the sale arrives days later', async () => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const ref = newRef('early');
      const body = JSON.stringify(kit.refund(refundInput(ref, 10000, 2500, 2500)));
      const refund = await w.send(f.programId, body);
      expect(refund.status).toBe(200);
      const parked = await w.waitForInbox(f.programId, refund.body.id, 'processed');
      expect(parked).toMatchObject({ attempts: 1, error: null });
      expect(parked.outcome).toEqual([expect.objectContaining({ kind: 'parked' })]);
      const [row] = await w.list(f.programId, 'parked-refunds');
      expect(row).toMatchObject({ status: 'parked', webhook_event_id: refund.body.id, provider: kit.provider });
      // A redelivery parks nothing twice.
      expect((await w.send(f.programId, body)).body).toMatchObject({ id: refund.body.id, duplicate: true });

      // Far beyond any retry window: the sale arrives two days later.
      const start = w.h.clock.now;
      w.h.clock.advanceDays(2);
      try {
        const payment = kit.payment({ ref, amountCents: 10000, keys: keysOf(f, customer) });
        const sale = await w.send(f.programId, payment.event);
        await w.waitForInbox(f.programId, sale.body.id, 'processed');
        const saleRow = await w.sale(f.programId, payment.transactionId);
        expect(saleRow?.refunded_cents).toBe(2500);
        expect(await w.commissionOf(f.programId, saleRow!.id)).toMatchObject({
          status: 'refunded',
          reversed_cents: 250,
        });
        const [applied] = await w.list(f.programId, 'parked-refunds');
        expect(applied).toMatchObject({
          id: row!.id,
          status: 'applied',
          outcome: expect.objectContaining({ kind: 'applied', deductionCents: 250 }),
        });
        // The sweeper finds nothing left to do: still one refund.
        await new Promise((r) => setTimeout(r, 3 * Number(w.h.ctx.config.SWEEP_INTERVAL_MS)));
        expect((await w.list(f.programId, 'refunds')).map((r) => r.deduction_cents)).toEqual([250]);
        expect(await w.inbox(f.programId, 'failed')).toEqual([]);
      } finally {
        w.h.clock.now = start;
      }
    });

    test('a parked refund the sale path missed (the two committed at the same instant) is applied by the sweeper', async () => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const ref = newRef('race');
      const refund = await w.send(f.programId, kit.refund(refundInput(ref, 10000, 10000, 10000)));
      await w.waitForInbox(f.programId, refund.body.id, 'processed');
      const [row] = await w.list(f.programId, 'parked-refunds');
      // As if the sale committed while the refund was being parked: neither side saw the other.
      const em = w.h.ctx.db.em.fork();
      await em.execute(`update parked_refund set status = 'hidden' where id = ${Number(row!.id)}`);
      const payment = kit.payment({ ref, amountCents: 10000, keys: keysOf(f, customer) });
      await w.waitForInbox(f.programId, (await w.send(f.programId, payment.event)).body.id, 'processed');
      expect((await w.sale(f.programId, payment.transactionId))?.refunded_cents).toBe(0);
      await em.execute(`update parked_refund set status = 'parked' where id = ${Number(row!.id)}`);
      await waitFor(async () => (await w.sale(f.programId, payment.transactionId))?.refunded_cents === 10000);
      const [applied] = await w.list(f.programId, 'parked-refunds');
      expect(applied).toMatchObject({ status: 'applied', outcome: expect.objectContaining({ status: 'reversed' }) });
      expect((await w.list(f.programId, 'refunds')).map((r) => r.deduction_cents)).toEqual([1000]);
    });

    test('refunds whose sale does not arrive → listed as unmatched after PARKED_REFUND_DAYS; a sale recorded later still takes its refund, once', async () => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const refs = [newRef('orphan'), newRef('orphan')];
      const bodies = refs.map((ref) => JSON.stringify(kit.refund(refundInput(ref, 10000, 10000, 10000))));
      const ids: number[] = [];
      for (const body of bodies) {
        const res = await w.send(f.programId, body);
        expect(res.status).toBe(200);
        ids.push(res.body.id);
        await w.waitForInbox(f.programId, res.body.id, 'processed');
      }
      const start = w.h.clock.now;
      w.h.clock.advanceDays(w.h.ctx.config.PARKED_REFUND_DAYS + 1);
      try {
        await waitFor(async () => (await w.list(f.programId, 'parked-refunds')).every((r) => r.status === 'unmatched'));
        const unmatched = await w.h.admin('GET', `/programs/${f.programId}/parked-refunds?status=unmatched`);
        expect(unmatched['parked-refunds'].map((r: { webhook_event_id: number }) => r.webhook_event_id).sort()).toEqual(
          [...ids].sort(),
        );
        expect(await w.inbox(f.programId, 'failed')).toEqual([]);
        // A sale that arrives after the horizon still takes its refund (the refund did happen).
        const sales = [];
        for (const ref of refs) {
          const payment = kit.payment({ ref, amountCents: 10000, keys: keysOf(f, customer) });
          const res = await w.send(f.programId, payment.event);
          await w.waitForInbox(f.programId, res.body.id, 'processed');
          sales.push(payment.transactionId);
        }
        for (const tx of sales) expect((await w.sale(f.programId, tx))?.refunded_cents).toBe(10000);
        expect((await w.list(f.programId, 'parked-refunds')).map((r) => r.status)).toEqual(['applied', 'applied']);
        // Replaying the refund events changes nothing.
        for (const id of ids) await w.h.admin('POST', `/programs/${f.programId}/webhook-events/replay`, { id });
        expect((await w.list(f.programId, 'refunds')).map((r) => r.deduction_cents)).toEqual([1000, 1000]);
      } finally {
        w.h.clock.now = start;
      }
    });

    test('a refund parked before a payment nobody referred is closed as not_recorded when that payment is processed', async () => {
      const f = await w.newProgram();
      const ref = newRef('unrefpark');
      const refund = await w.send(f.programId, kit.refund(refundInput(ref, 10000, 10000, 10000)));
      await w.waitForInbox(f.programId, refund.body.id, 'processed');
      const payment = kit.payment({ ref, amountCents: 10000, keys: null });
      await w.waitForInbox(f.programId, (await w.send(f.programId, payment.event)).body.id, 'ignored');
      const [row] = await w.list(f.programId, 'parked-refunds');
      expect(row).toMatchObject({ status: 'not_recorded', outcome: expect.objectContaining({ code: 'not_found' }) });
    });

    test('refund of a payment whose event recorded no sale (not referred) → ignored as sale_not_recorded, not retried into failed', async () => {
      const f = await w.newProgram();
      const ref = newRef('unref');
      // A checkout without tracker keys: no sale, and the inbox row says why.
      const payment = kit.payment({ ref, amountCents: 10000, keys: null });
      const sale = await w.send(f.programId, payment.event);
      const saleRow = await w.waitForInbox(f.programId, sale.body.id, 'ignored');
      expect(saleRow).toMatchObject({
        error: 'no_tracker_metadata',
        outcome: [expect.objectContaining({ kind: 'error', code: 'no_attribution' })],
      });
      const refund = await w.send(f.programId, kit.refund(refundInput(ref, 10000, 10000, 10000)));
      const row = await w.waitForInbox(f.programId, refund.body.id, 'ignored');
      expect(row).toMatchObject({
        attempts: 1,
        error: 'sale_not_recorded',
        outcome: [expect.objectContaining({ kind: 'error', code: 'not_found' })],
      });
      expect(await w.inbox(f.programId, 'failed')).toEqual([]);
    });
  });
}
