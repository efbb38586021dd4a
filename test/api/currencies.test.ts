/**
 * The `CURRENCIES` opt-in through the direct API: a GBP (2 digits), a JPY (0) and a KWD (3) sale,
 * partial and full refunds, payouts, statements and exports, all exact in ISO minor units; a
 * currency the setting leaves out is still 422 `unsupported_currency`.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, bearer, clickAndLead, createProgramFixture, useHarness } from '../helpers/harness.ts';
import { loadConfig } from '../../src/config.ts';

const h = useHarness({ CURRENCIES: 'GBP,JPY,KWD' });

async function sale(key: string, body: Record<string, unknown>) {
  return h.request('/api/v1/track/sale', { body: { customer_key: 'buyer', ...body }, headers: bearer(key) });
}

describe('with CURRENCIES=GBP,JPY,KWD', () => {
  // 12.5% of each sale; a third refunded, then the rest. Reversals are derived from cumulative
  // totals: round(commission × refunded / amount) − already reversed.
  test.each([
    // currency, amount, commission, first refund, its reversal, payout decimal
    ['GBP: 49.99 earns 6.25 (624.875 rounds up)', 'GBP', 4_999, 625, 1_666, 208, '4.17'],
    ['JPY: ¥4,999 earns ¥625, no decimals anywhere', 'JPY', 4_999, 625, 1_666, 208, '417'],
    ['KWD: 12.345 earns 1.543 (1543.125 rounds down)', 'KWD', 12_345, 1_543, 4_115, 514, '1.029'],
  ] as const)(
    '%s; a partial refund reverses its share exactly, the payout pays the rest',
    async (_label, currency, amount, commission, refunded, reversal, payoutDecimal) => {
      const f = await createProgramFixture(h, { commission_rate_bps: 1250 });
      await clickAndLead(h, f, 'buyer');
      const s = await sale(f.liveKey, { transaction_id: `${currency}-1`, amount_cents: amount, currency });
      expect(s.status).toBe(200);
      const commissions = await h.admin('GET', `/programs/${f.programId}/commissions?limit=10`);
      expect(commissions.commissions[0]).toMatchObject({
        id: s.body.commission_id,
        currency,
        amount_cents: commission,
      });

      await h.admin('POST', `/programs/${f.programId}/commissions/${s.body.commission_id}/approve`, {});
      const refund = await h.request('/api/v1/track/refund', {
        body: { transaction_id: `${currency}-1`, refund_amount_cents: refunded, refund_id: 'r1' },
        headers: bearer(f.liveKey),
      });
      expect(refund.body).toMatchObject({ status: 'refunded', deductionAmount: reversal });

      const opened = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/payouts`, { currency });
      expect(opened.payout).toMatchObject({ currency, amount_cents: commission - reversal });
      const paid = await h.admin('POST', `/programs/${f.programId}/payouts/${opened.payout.id}/pay`, {});
      expect(paid.payout).toMatchObject({ status: 'paid', amount_cents: commission - reversal });

      const statement = await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`);
      expect(statement.balances).toEqual([{ currency, balance_cents: 0 }]);

      const csv = await h.request(`/api/v1/admin/programs/${f.programId}/exports/payouts`, {
        method: 'GET',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const [header, row] = parse(csv.body as string) as string[][];
      expect(row![header!.indexOf('amount')]).toBe(payoutDecimal);
      expect(row![header!.indexOf('currency')]).toBe(currency);

      // The rest of the sale: the commission is reversed to the last minor unit, and since it was
      // paid out the partner's balance goes below zero by exactly that.
      const rest = await h.request('/api/v1/track/refund', {
        body: { transaction_id: `${currency}-1` },
        headers: bearer(f.liveKey),
      });
      expect(rest.body).toMatchObject({ status: 'reversed', deductionAmount: commission - reversal });
      const after = await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`);
      expect(after.balances).toEqual([{ currency, balance_cents: -(commission - reversal) }]);
    },
  );

  test('lower-case codes are read as upper case; the contract’s three still work', async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'buyer');
    for (const [i, currency] of ['gbp', 'USD', 'EUR', 'VND'].entries()) {
      const r = await sale(f.liveKey, { transaction_id: `mixed-${i}`, amount_cents: 10_000, currency });
      expect(r.status, currency).toBe(200);
    }
    const sales = await h.admin('GET', `/programs/${f.programId}/sales?limit=10`);
    expect(sales.sales.map((s: { currency: string }) => s.currency).sort()).toEqual(['EUR', 'GBP', 'USD', 'VND']);
  });

  test('a currency the setting leaves out: 422 unsupported_currency naming the setting, nothing created', async () => {
    const f = await createProgramFixture(h);
    await clickAndLead(h, f, 'buyer');
    const r = await sale(f.liveKey, { transaction_id: 'chf-1', amount_cents: 1_000, currency: 'CHF' });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: 'unsupported_currency', details: { currency: 'CHF' } });
    expect(r.body.error.message).toMatch(/CURRENCIES/);
    expect(r.body.error.details.supported).toEqual(['USD', 'EUR', 'VND', 'GBP', 'JPY', 'KWD']);
    expect((await h.admin('GET', `/programs/${f.programId}/sales?limit=10`)).sales).toEqual([]);
  });
});

test('GET /admin/currencies lists what the setting accepts, with ISO 4217 minor units', async () => {
  expect(await h.admin('GET', '/currencies')).toEqual({
    setting: 'extended',
    currencies: [
      { code: 'USD', minor_unit_digits: 2 },
      { code: 'EUR', minor_unit_digits: 2 },
      { code: 'VND', minor_unit_digits: 0 },
      { code: 'GBP', minor_unit_digits: 2 },
      { code: 'JPY', minor_unit_digits: 0 },
      { code: 'KWD', minor_unit_digits: 3 },
    ],
  });
});

describe('the setting', () => {
  test.each([
    ['unset: the contract’s three', undefined, true],
    ['all', 'all', true],
    ['a list', 'gbp, JPY,KWD', true],
    ['an unknown code', 'GBP,XYZ', false],
    ['a code without a minor unit (gold)', 'XAU', false],
  ])('%s', (_label, value, ok) => {
    const load = () => loadConfig(value === undefined ? {} : { CURRENCIES: value });
    if (ok) expect(load).not.toThrow();
    else expect(load).toThrow(/CURRENCIES: not ISO 4217 currencies with a minor unit/);
  });
});
