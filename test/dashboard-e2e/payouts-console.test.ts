/**
 * The payout console in a real Chromium against the real server: the Payout runs page previews a
 * run with one partner passed by for each reason, starts it and keeps the reasons on the run; a
 * failed payout reaches the partner's portal with its reason and the partner asks for a payout;
 * on Approvals & payouts, held commissions are approved together and rejected together after a
 * confirmation (cancelled once). axe-core on every page state (no serious or critical violation).
 * `SCREENSHOTS_DIR=docs/screenshots` also writes the screenshots docs/payouts.md shows.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';
import { browserTestsEnabled, launchChromium } from '../tracker/browser-harness.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { expectAccessible, openPage, shot } from './page-checks.ts';
import { tab } from './webhook-log-journey.ts';

const SHOTS = process.env.SCREENSHOTS_DIR;
let h: Harness;
let base: string;
let browser: Browser;
const problems: string[] = [];
let seq = 0;

/** A sale of `cents` for the partner (`code`) right after its click; approved when `approve`. */
async function sale(f: Fixture, cents: number, code: string, approve = true): Promise<number> {
  const key = `console-${++seq}`;
  await clickAndLead(h, f, key, code);
  const r = await h.request('/api/v1/track/sale', {
    body: { transaction_id: `console-${seq}`, amount_cents: cents, customer_key: key },
    headers: bearer(f.liveKey),
  });
  if (approve) await h.admin('POST', `/programs/${f.programId}/commissions/${r.body.commission_id}/approve`, {});
  return r.body.commission_id;
}

async function signIn(op: Page, programId: number): Promise<void> {
  await op.goto(`${base}/dashboard/sign-in`);
  await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await op.getByRole('button', { name: 'Sign in' }).click();
  await op.getByRole('heading', { name: 'Programs' }).waitFor();
  await op.goto(`${base}/dashboard/programs/${programId}`);
}

describe.runIf(browserTestsEnabled())('payout console in Chromium', () => {
  beforeAll(async () => {
    h = await createHarness({ DATA_ENCRYPTION_KEYS: generateSealingKey('e2e'), SWEEP_INTERVAL_MS: '3600000' });
    base = await h.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  test('a run previewed with every skip reason, started, its failure in the portal', { timeout: 120_000 }, async () => {
    const f = await createProgramFixture(h, {
      commission_rate_bps: 1000,
      payout_settings: { rail: 'paypal', minimum_cents: { USD: 5_000 } },
    });
    const partner = async (name: string) =>
      (await h.admin('POST', `/programs/${f.programId}/partners`, { code: `c${++seq}x`, name })).partner as {
        id: number;
        code: string;
      };
    const [paid, none, wise, small, held, owing] = [
      await partner('Paid Partner'),
      await partner('No Details'),
      await partner('Wise Only'),
      await partner('Small Balance'),
      await partner('Held Sales'),
      await partner('Owes Back'),
    ];
    // Payout details through the portal API: the partner's own session.
    const details = async (p: { id: number }, body: object) => {
      const invite = await h.admin('POST', `/programs/${f.programId}/partners/${p.id}/invites`);
      const token = new URL(invite.invite_url).pathname.split('/').pop();
      const r = await h.request(`/api/v1/partner/invites/${token}`, { body: { password: 'correct horse battery' } });
      const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0]!;
      await h.request('/api/v1/partner/payout-method', {
        method: 'PUT',
        body,
        headers: { cookie, 'x-csrf-token': r.body.csrf_token },
      });
    };
    for (const p of [paid, small, held, owing]) await details(p, { kind: 'paypal', email: `p${p.id}@example.com` });
    await details(wise, { kind: 'wise', name: 'Wise Only', email: 'wise@example.com' });
    await sale(f, 60_000, paid.code);
    await sale(f, 60_000, none.code);
    await sale(f, 70_000, wise.code);
    await sale(f, 30_000, small.code);
    await sale(f, 40_000, held.code, false);
    const owed = await sale(f, 60_000, owing.code);
    await h.admin('POST', `/programs/${f.programId}/commissions/${owed}/pay`, {});
    await h.request('/api/v1/track/refund', { body: { transaction_id: `console-${seq}` }, headers: bearer(f.liveKey) });

    const op = await openPage(browser, 1440, 900, problems);
    await signIn(op, f.programId);
    await tab(op, 'Payout runs');
    await op.getByRole('button', { name: 'Preview payout run' }).click();
    const preview = op.getByTestId('payout-preview');
    await preview.getByText('1 partner(s) paid, 60.00 USD; 5 passed by.').waitFor();
    const reasonOf = async (id: number) =>
      preview.locator(`tr[data-preview-partner="${id}"] [data-skip]`).getAttribute('data-skip');
    expect(await Promise.all([none, wise, small, held, owing].map((p) => reasonOf(p.id)))).toEqual([
      'no_payout_details',
      'method_not_in_run',
      'below_minimum',
      'held',
      'negative_balance',
    ]);
    await preview.getByText('Payout details are for wise, not for this paypal run').waitFor();
    await preview.getByText('Negative balance: the partner owes back 60.00 USD').waitFor();
    await expectAccessible(op, 'payout run preview');
    await shot(SHOTS, op, 'payout-preview');

    await preview.getByRole('button', { name: 'Start payout run' }).click();
    await op
      .getByRole('status')
      .filter({ hasText: /^Run \d+: 1 payout\(s\); 5 partner\(s\) passed by/ })
      .waitFor();
    const passed = op.getByRole('region', { name: /^Partners run \d+ passed by$/ });
    await passed.getByText('Below the minimum payout (30.00 USD < 50.00 USD)').waitFor();
    // The page reloads the runs after the confirmation: counted once the run's card lists them.
    expect(await passed.locator('[data-skip]').count()).toBe(5);
    await expectAccessible(op, 'payout run with partners passed by');
    await shot(SHOTS, op, 'payout-run-skipped');

    // The bank refuses the payout: the partner sees why, and (requests allowed) asks again.
    const payoutId = Number(await op.locator('tr[data-payout-id]').first().getAttribute('data-payout-id'));
    await op.getByRole('textbox', { name: `Failure reason for payout ${payoutId}` }).fill('PayPal account unverified');
    await op.getByRole('button', { name: `Mark failed payout ${payoutId}` }).click();
    await op.getByRole('status').filter({ hasText: 'its amount is back in the balance' }).waitFor();
    await h.admin('PATCH', `/programs/${f.programId}`, {
      payout_settings: { rail: 'paypal', minimum_cents: { USD: 5_000 }, partner_requests: true },
    });
    const pp = await openPage(browser, 375, 812, problems);
    const invite = await h.admin('POST', `/programs/${f.programId}/partners/${paid.id}/invites`);
    await pp.goto(`${base}${new URL(invite.invite_url).pathname}`);
    await pp.getByLabel('New password', { exact: false }).first().fill('paid partner password');
    await pp.getByLabel('Repeat the password').fill('paid partner password');
    await pp.getByRole('button', { name: 'Set password and sign in' }).click();
    await pp.waitForURL(`${base}/portal`);
    expect(await pp.getByTestId('payout-failure').textContent()).toBe('PayPal account unverified');
    expect(await pp.getByTestId('failure-reason').textContent()).toContain('PayPal account unverified');
    await pp.getByRole('button', { name: 'Request a payout of 60.00 USD' }).click();
    await pp.getByRole('status').filter({ hasText: 'Payout of 60.00 USD requested.' }).waitFor();
    await pp.getByText('Requested: the merchant pays it on the next run.').waitFor();
    await expectAccessible(pp, 'portal with a failed payout and a request');
    await shot(SHOTS, pp, 'portal-payout-failed');
    expect((await h.admin('GET', `/programs/${f.programId}/payouts?status=open`)).payouts).toHaveLength(1);
    expect(problems).toEqual([]);
  });

  test('held commissions approved together, rejected together after a confirmation', { timeout: 90_000 }, async () => {
    const f = await createProgramFixture(h, {
      commission_rate_bps: 1000,
      fraud_rules: { fast_conversion_seconds: 3600 },
    });
    const held = [
      await sale(f, 10_000, f.partnerCode, false),
      await sale(f, 20_000, f.partnerCode, false),
      await sale(f, 30_000, f.partnerCode, false),
    ];
    const op = await openPage(browser, 1440, 900, problems);
    await signIn(op, f.programId);
    await tab(op, 'Approvals & payouts');
    await op.getByRole('checkbox', { name: `Select commission ${held[0]}` }).check();
    await op.getByRole('checkbox', { name: `Select commission ${held[1]}` }).check();
    await op.getByRole('button', { name: 'Approve selected (2)' }).click();
    await op.getByRole('status').filter({ hasText: '2 commission(s) approved.' }).waitFor();

    await op.getByRole('checkbox', { name: `Select commission ${held[2]}` }).check();
    await op.getByRole('button', { name: 'Reject selected (1)' }).click();
    const dialog = op.getByRole('dialog', { name: 'Reject 1 commission?' });
    await dialog.getByText('This cannot be undone.', { exact: false }).waitFor();
    await expectAccessible(op, 'reject confirmation');
    await shot(SHOTS, op, 'bulk-reject-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const commission = async (id: number) =>
      (await h.admin('GET', `/programs/${f.programId}/commissions?limit=10`)).commissions.find(
        (c: { id: number }) => c.id === id,
      );
    expect(await commission(held[2]!)).toMatchObject({ status: 'pending', held_for_review: true });

    await op.getByRole('button', { name: 'Reject selected (1)' }).click();
    await dialog.getByRole('button', { name: 'Reject 1' }).click();
    await op.getByRole('status').filter({ hasText: '1 commission(s) rejected.' }).waitFor();
    expect(await commission(held[2]!)).toMatchObject({ status: 'reversed', held_for_review: false });
    expect(await commission(held[0]!)).toMatchObject({ status: 'approved' });
    await expectAccessible(op, 'approvals after a bulk decision');
    await shot(SHOTS, op, 'bulk-approvals');
    expect(problems).toEqual([]);
  });
});
