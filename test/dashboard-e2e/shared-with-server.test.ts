/**
 * What the dashboard shares with the server, in a real Chromium against the real server: amounts
 * in each currency's own minor unit (a VND sale, VND having none, in whole đồng; a USD sale with
 * cents), and the choices its forms offer are the server's own value sets.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  type Harness,
} from '../helpers/harness.ts';
import { browserTestsEnabled, launchChromium } from '../tracker/browser-harness.ts';
import {
  CURRENCIES,
  PAYOUT_METHOD_KINDS,
  PAYOUT_RAILS,
  SALE_PROVIDERS,
  WEBHOOK_PROVIDERS,
} from '../../src/core/shared/vocabulary.ts';

let h: Harness;
let base: string;
let browser: Browser;
const pageErrors: string[] = [];

async function signedIn(): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(`${base}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Programs' }).waitFor();
  return page;
}

describe.runIf(browserTestsEnabled())('the dashboard and the server', () => {
  beforeAll(async () => {
    h = await createHarness();
    base = await h.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  test('a VND sale shows whole đồng, a USD sale shows cents', { timeout: 60_000 }, async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'vnd-buyer');
    for (const [transaction_id, amount_cents, currency] of [
      ['vnd-1', 250_000, 'VND'],
      ['usd-1', 4_900, 'USD'],
    ] as const) {
      const r = await h.request('/api/v1/track/sale', {
        body: { transaction_id, amount_cents, currency, customer_key: 'vnd-buyer' },
        headers: bearer(f.liveKey),
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const op = await signedIn();

    // Records: each sale's amount and its commission (10 %) in its currency's precision.
    await op.goto(`${base}/dashboard/programs/${f.programId}/records/sales`);
    const sale = (tx: string) => op.locator('tbody tr').filter({ hasText: tx });
    await expect.poll(() => sale('vnd-1').textContent()).toContain('250,000 VND');
    expect(await sale('vnd-1').textContent()).not.toContain('.00');
    expect(await sale('usd-1').textContent()).toContain('49.00 USD');
    await op.getByRole('link', { name: 'commissions', exact: true }).click();
    const amounts = op.locator('tbody tr').getByRole('cell', { name: /^[\d,.]+ (VND|USD)$/ });
    await expect.poll(() => amounts.allTextContents()).toContain('25,000 VND');
    expect(await amounts.allTextContents()).toContain('4.90 USD');

    // Overview: the totals of each currency, and the chart's scale in whole đồng.
    await op.goto(`${base}/dashboard/programs/${f.programId}`);
    await op.getByRole('combobox', { name: 'Currency' }).selectOption('VND');
    await expect.poll(() => op.locator('[data-stat="revenue"]').textContent()).toBe('250,000 VND');
    expect(await op.locator('[data-stat="commissions"]').textContent()).toBe('25,000 VND');
    await op.getByRole('img', { name: /Revenue, gross \(VND\) total 250000,/ }).waitFor();
    await op.getByRole('combobox', { name: 'Currency' }).selectOption('USD');
    await expect.poll(() => op.locator('[data-stat="revenue"]').textContent()).toBe('49.00 USD');

    expect(pageErrors).toEqual([]);
  });

  test('the forms offer the server’s providers, payout rails and currencies', { timeout: 60_000 }, async () => {
    const f = await createProgramFixture(h);
    const op = await signedIn();
    const options = (name: string) =>
      op.locator(`select[name="${name}"] option`).evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    const program = `${base}/dashboard/programs/${f.programId}`;

    await op.goto(`${program}/providers`);
    await op.getByRole('heading', { name: 'Connect a provider' }).waitFor();
    expect(await options('provider')).toEqual([...WEBHOOK_PROVIDERS]);
    await op.goto(`${program}/events`);
    await op.getByRole('heading', { name: 'Webhook event log' }).waitFor();
    expect(await options('provider')).toEqual(['', ...WEBHOOK_PROVIDERS]);
    await op.goto(`${program}/records/sales`);
    await op.getByRole('heading', { name: 'Records' }).waitFor();
    expect(await options('provider')).toEqual(['', ...SALE_PROVIDERS]);
    await op.goto(`${program}/payout-runs`);
    await op.getByRole('heading', { name: 'Payout runs' }).waitFor();
    expect(await options('run-rail')).toEqual(['', ...PAYOUT_RAILS]);
    expect(await options('run-currency')).toEqual([...CURRENCIES]);

    // The partner's choice of payout details, in the portal.
    const { invite_url } = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/invites`);
    await op.goto(invite_url.replace(/^https?:\/\/[^/]+/, base));
    await op.getByLabel('New password', { exact: false }).first().fill('partner password one');
    await op.getByLabel('Repeat the password').fill('partner password one');
    await op.getByRole('button', { name: 'Set password and sign in' }).click();
    await op.waitForURL(`${base}/portal`);
    await op.getByRole('heading', { name: 'How you are paid' }).waitFor();
    expect(await options('payout-kind')).toEqual([...PAYOUT_METHOD_KINDS]);

    expect(pageErrors).toEqual([]);
  });
});
