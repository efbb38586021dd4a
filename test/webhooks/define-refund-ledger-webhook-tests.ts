/**
 * End-to-end refund scenarios every provider must pass where provider refunds meet the rest of the
 * service (issue 4): API refunds of the same sale sharing one cumulative state, and deductions from
 * a partner balance already credited.
 */
import { describe, expect, test } from 'vitest';
import { bearer } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import type { WebhookHarness } from './webhook-harness.ts';
import { createScenarioSteps, refundInput } from './scenario-steps.ts';

export function defineRefundLedgerWebhookTests(w: WebhookHarness): void {
  const { kit } = w;
  const { paidSale, deliverRefund } = createScenarioSteps(w);

  describe(`${kit.provider}: refunds against API refunds and balances`, () => {
    test('provider refunds and API refunds of one sale share one cumulative state', async () => {
      const f = await w.newProgram();
      const s = await paidSale(f, 10000);
      const api = (body: Record<string, unknown>) =>
        w.h.request('/api/v1/track/refund', {
          body: { transaction_id: s.transactionId, ...body },
          headers: bearer(f.liveKey),
        });

      await deliverRefund(f, refundInput(s.ref, 10000, 2000, 2000));
      const r2 = await api({ refund_amount_cents: 3000, refund_id: 'api-1' });
      expect(r2.body).toEqual({
        success: true,
        status: 'refunded',
        deductionAmount: 300,
        commission_id: s.commission.id,
      });
      // The provider's next refund; Lemon Squeezy's running total includes the API-reported one.
      const row3 = await deliverRefund(f, refundInput(s.ref, 10000, 3000, 8000));
      expect(row3.outcome).toEqual([
        expect.objectContaining({ kind: 'applied', status: 'refunded', deductionCents: 300 }),
      ]);
      const r4 = await api({});
      expect(r4.body).toEqual({
        success: true,
        status: 'reversed',
        deductionAmount: 200,
        commission_id: s.commission.id,
      });
      const row5 = await deliverRefund(f, refundInput(s.ref, 10000, 1000, 10000));
      expect(row5.outcome).toEqual([expect.objectContaining({ kind: 'skipped' })]);

      expect(await w.commissionOf(f.programId, s.sale.id)).toMatchObject({ status: 'reversed', reversed_cents: 1000 });
      expect((await w.sale(f.programId, s.transactionId))?.refunded_cents).toBe(10000);
      expect((await w.list(f.programId, 'refunds')).reduce((sum, r) => sum + r.deduction_cents, 0)).toBe(1000);
    });

    test('the same refund reported by the provider and again by the API never over-deducts', async () => {
      const f = await w.newProgram();
      const s = await paidSale(f, 10000);
      const invariant = async () => {
        const sale = await w.sale(f.programId, s.transactionId);
        const commission = await w.commissionOf(f.programId, s.sale.id);
        const deductions = (await w.list(f.programId, 'refunds')).reduce((sum, r) => sum + r.deduction_cents, 0);
        expect(deductions).toBe(commission!.reversed_cents);
        expect(deductions).toBeLessThanOrEqual(commission!.amount_cents);
        expect(sale!.refunded_cents).toBeLessThanOrEqual(sale!.amount_cents);
        expect(commission!.status === 'reversed').toBe(sale!.refunded_cents === sale!.amount_cents);
      };
      await deliverRefund(f, refundInput(s.ref, 10000, 6000, 6000));
      await invariant();
      // The merchant also reports it through the API (another id): counted again, capped at the sale.
      const api = await w.h.request('/api/v1/track/refund', {
        body: { transaction_id: s.transactionId, refund_amount_cents: 6000, refund_id: 'dup-report' },
        headers: bearer(f.liveKey),
      });
      expect(api.status).toBe(200);
      await invariant();
      await deliverRefund(f, refundInput(s.ref, 10000, 4000, 10000));
      await invariant();
      expect(await w.commissionOf(f.programId, s.sale.id)).toMatchObject({ status: 'reversed', reversed_cents: 1000 });
    });

    test('a refund webhook on a credited commission deducts from the partner balance', async () => {
      const f = await w.newProgram();
      const s = await paidSale(f, 10000);
      await w.h.admin('POST', `/programs/${f.programId}/commissions/${s.commission.id}/approve`, {});
      expect(await w.balanceCents(f)).toBe(1000);

      const row = await deliverRefund(f, refundInput(s.ref, 10000, 2500, 2500));
      expect(row.outcome).toEqual([
        expect.objectContaining({
          kind: 'applied',
          status: 'refunded',
          deductionCents: 250,
          balanceDeductionCents: 250,
        }),
      ]);
      expect(await w.balanceCents(f)).toBe(750);
      const account = await w.h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/account`);
      expect(account.ledger.filter((e: any) => e.kind === 'refund_deduction').map((e: any) => e.delta_cents)).toEqual([
        -250,
      ]);

      await deliverRefund(f, refundInput(s.ref, 10000, 7500, 10000));
      expect(await w.balanceCents(f)).toBe(0);
      expect(await w.commissionOf(f.programId, s.sale.id)).toMatchObject({ status: 'reversed', reversed_cents: 1000 });
      // The partner is told after commit (outbox → notification sender).
      await waitFor(() => w.h.sent.filter((n) => n.commissionId === s.commission.id).length === 2);
    });
  });
}
