/**
 * The dashboard and the partner portal in a real Chromium against the real server: the operator's
 * and the partner's journeys end to end, the operator's outbound events page against a local
 * receiver (outbound-events-journey.ts), payout runs (payout-runs-journey.ts), with axe-core on every page and no CSP violation.
 * `SCREENSHOTS_DIR=docs/screenshots npx vitest run test/dashboard-e2e` also writes the README's
 * screenshots.
 */
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, bearer, createHarness, type Harness } from '../helpers/harness.ts';
import { browserTestsEnabled, launchChromium } from '../tracker/browser-harness.ts';
import { ensureFreshTrackerBundle, visit } from '../tracker-e2e/e2e-helpers.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { expectAccessible, openPage, shot, startReceiver, type Receiver } from './page-checks.ts';
import { outboundEventsJourney } from './outbound-events-journey.ts';
import { payoutRunsJourney } from './payout-runs-journey.ts';
import { tab, webhookLogJourney } from './webhook-log-journey.ts';
import { rewardReviewJourney, rewardsSetup } from './reward-review-journey.ts';

const STRIPE_SECRET = 'whsec_dashboard_e2e_secret_0123456789';
const SHOTS = process.env.SCREENSHOTS_DIR;

let h: Harness;
let base: string;
let browser: Browser;
let receiver: Receiver;
const contexts: BrowserContext[] = [];
const problems: string[] = []; // page errors and CSP violations of every page

async function newPage(width: number, height: number): Promise<Page> {
  const page = await openPage(browser, width, height, problems);
  contexts.push(page.context());
  return page;
}

const enabled = browserTestsEnabled();

describe.runIf(enabled)('dashboard and partner portal in Chromium', () => {
  beforeAll(async () => {
    await ensureFreshTrackerBundle();
    // Slow retries: an event that fails stays pending long enough to be replayed by hand.
    // A data key: outbound event endpoint secrets are stored sealed (production mode needs one).
    h = await createHarness({
      WEBHOOK_ATTEMPTS: '20',
      WEBHOOK_RETRY_BASE_MS: '5000',
      DATA_ENCRYPTION_KEYS: generateSealingKey('e2e'),
      // The outbound events receiver listens on this machine (the URL guard refuses it unless listed).
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    });
    base = await h.listen();
    browser = await launchChromium();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    for (const c of contexts) await c.close();
    await browser?.close();
    await h?.close();
  });

  test('operator and partner walk through the whole flow', { timeout: 180_000 }, async () => {
    const op = await newPage(1440, 900);

    // The operator signs in with the admin token.
    await op.goto(`${base}/dashboard`);
    await op.getByRole('heading', { name: 'Dashboard sign in' }).waitFor();
    await expectAccessible(op, 'dashboard sign-in');
    await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await op.getByRole('button', { name: 'Sign in' }).click();
    await op.getByRole('heading', { name: 'Programs' }).waitFor();
    const cookies = await op.context().cookies();
    expect(cookies.find((c) => c.name === 'dashboard_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
      path: '/api/v1',
    });
    await expectAccessible(op, 'programs');

    // Creates a program.
    await op.getByRole('textbox', { name: 'Name', exact: true }).fill('Acme Shop');
    await op.getByLabel('Commission rate (%)').fill('10');
    await op.getByRole('button', { name: 'Create program' }).click();
    await op.waitForURL(/\/dashboard\/programs\/\d+$/);
    const programId = Number(/programs\/(\d+)/.exec(op.url())?.[1]);
    await op.getByRole('heading', { name: 'Overview: Acme Shop' }).waitFor();

    // Issues a key: shown once.
    await tab(op, 'API keys');
    await expectAccessible(op, 'API keys');
    await op.getByRole('button', { name: 'Issue key' }).click();
    const key = (await op.getByTestId('new-key').textContent())?.trim() ?? '';
    expect(key).toMatch(/^trk_live_/);
    expect((await h.request('/api/v1/cli/status', { headers: bearer(key) })).status).toBe(200);
    await op.getByRole('button', { name: 'I stored it, hide it' }).click();
    await op.reload();
    await op.getByRole('cell', { name: `${key.slice(0, 13)}…` }).waitFor();
    expect(await op.content()).not.toContain(key);

    // Connects Stripe: the webhook URL to paste is shown.
    await tab(op, 'Providers');
    await op.getByRole('combobox', { name: /^Provider/ }).selectOption('stripe');
    await op.getByRole('textbox', { name: /^Webhook signing secret/ }).fill(STRIPE_SECRET);
    await op.getByRole('button', { name: 'Connect' }).click();
    expect(await op.getByTestId('webhook-url').textContent()).toBe(`${base}/api/v1/webhooks/stripe/${programId}`);
    await op.getByRole('heading', { name: 'stripe', exact: true }).waitFor();
    await op
      .getByRole('region', { name: 'stripe signing secrets' })
      .getByRole('cell', { name: 'live', exact: true })
      .waitFor();
    await expectAccessible(op, 'providers');

    // Adds a partner and creates the invite link.
    await tab(op, 'Partners');
    const code = `jane${Date.now().toString(36)}`;
    await op.getByRole('textbox', { name: 'Name', exact: true }).fill('Jane Partner');
    await op.getByRole('textbox', { name: /^Referral code/ }).fill(code);
    await op.getByRole('button', { name: 'Add partner' }).click();
    await op.getByRole('cell', { name: code, exact: true }).waitFor();
    await op.getByRole('button', { name: 'Create invite link for Jane Partner' }).click();
    const inviteUrl = (await op.getByTestId('invite-url').textContent())?.trim() ?? '';
    expect(inviteUrl).toMatch(new RegExp(`^${base}/portal/invite/[\\w-]{40,}$`));
    await expectAccessible(op, 'partners');
    // Gives Jane a coupon code (with the Stripe promotion code id of the same discount), then retires an old one.
    const codeForm = op.getByRole('form', { name: 'Add a coupon code' });
    for (const [coupon, ids] of [
      ['JANE10', 'promo_1JaneE2e'],
      ['OLDJANE', ''],
    ]) {
      await codeForm.getByRole('textbox', { name: /^Coupon code/ }).fill(coupon!);
      await codeForm.getByRole('textbox', { name: /^Provider ids/ }).fill(ids!);
      await codeForm.getByRole('button', { name: 'Add code' }).click();
      await op.getByTestId('coupon-codes').getByRole('cell', { name: coupon, exact: true }).waitFor();
    }
    await op.getByTestId('coupon-codes').getByRole('cell', { name: 'promo_1JaneE2e' }).waitFor();
    await op.getByRole('button', { name: 'Retire code OLDJANE' }).click();
    await op
      .getByTestId('coupon-codes')
      .getByRole('cell', { name: /^retired/ })
      .waitFor();
    await expectAccessible(op, 'partners with coupon codes');

    await rewardsSetup(op); // a what-if of proposed rules, a group, Jane moved into it

    // The partner accepts the invite on a phone-sized screen and sees their link.
    const pp = await newPage(375, 812);
    await pp.goto(inviteUrl);
    await pp.getByText('You were invited as').waitFor();
    await expectAccessible(pp, 'portal invite');
    await pp.getByLabel('New password', { exact: false }).first().fill('jane partner password');
    await pp.getByLabel('Repeat the password').fill('jane partner password');
    await pp.getByRole('button', { name: 'Set password and sign in' }).click();
    await pp.waitForURL(`${base}/portal`);
    const link = await pp.getByTestId('referral-link').inputValue();
    expect(link).toBe(`${base}/demo?program=${programId}&aff=${code}`);
    // Jane's code in use is shown; the retired one and the provider id are not.
    expect(await pp.getByTestId('coupon-codes').getByRole('listitem').allTextContents()).toEqual(['JANE10']);
    expect(await pp.getByTestId('partner-group').textContent()).toBe('Your group: Podcasters.');
    await expectAccessible(pp, 'portal home');
    // The invite link worked once.
    await pp.goto(inviteUrl);
    await pp.getByRole('alert').filter({ hasText: 'already used' }).waitFor();

    // A visitor comes through that link; the checkout carries the tracker keys.
    const visitor = await newPage(1280, 800);
    await visit(visitor, link);

    await webhookLogJourney({ h, base, op, visitor, programId, secret: STRIPE_SECRET, shots: SHOTS });

    // The sale and its partial refund: the partner is notified with the reason, the merchant sees the new amount.
    await pp.goto(`${base}/portal`);
    await expect.poll(() => pp.getByTestId('unread').textContent()).toContain('1 unread');
    expect(await pp.getByTestId('reason').textContent()).toBe('Arrived damaged');
    expect(await pp.getByTestId('net').first().textContent()).toBe('7.50 USD');
    await expectAccessible(pp, 'portal after refund');

    await tab(op, 'Records');
    await op.getByRole('link', { name: 'commissions', exact: true }).click();
    const commissionRow = op.locator('tbody tr').first();
    await expect.poll(() => commissionRow.textContent()).toContain('refunded');
    expect(await commissionRow.textContent()).toContain('2.50 USD'); // reversed of 10.00
    // The partner by name beside the id.
    await expect.poll(() => commissionRow.textContent()).toMatch(/Jane Partner \(#\d+\)/);
    await expectAccessible(op, 'records');
    // The commissions as CSV, downloaded with the operator's session.
    const [download] = await Promise.all([
      op.waitForEvent('download'),
      op.getByRole('link', { name: 'commissions.csv' }).click(),
    ]);
    const exported = readFileSync((await download.path()) as string, 'utf8').split('\n');
    expect(exported[0]).toMatch(/^id,created_at,partner_id,partner_code,partner_name,sale_id,transaction_id,/);
    expect(exported[1]).toContain(',pi_e2e1,USD,1000,250,750,refunded,');
    // Headings match their cells: amounts are shown with their currency, not as cents.
    const headings = await op.locator('thead th').allTextContents();
    expect(headings).toContain('amount');
    expect(headings.join(' ')).not.toContain('cents');
    // The refund that arrived before its sale, applied: listed under parked-refunds.
    await op.getByRole('link', { name: 'parked-refunds' }).click();
    await expect.poll(() => op.locator('tbody').textContent()).toContain('applied');
    await tab(op, 'Notifications');
    await op.getByText('Partner notified of a refund').waitFor();
    await expectAccessible(op, 'notifications');

    // Approval and payout update the partner's balance.
    await tab(op, 'Approvals & payouts');
    await op.getByRole('button', { name: /^Approve commission/ }).click();
    await op.getByRole('status').filter({ hasText: 'Commission approved' }).waitFor();
    await pp.reload();
    await pp.locator('[data-balance="USD"]').filter({ hasText: '7.50 USD' }).waitFor();
    await op.getByLabel('Amount in USD').fill('7.50');
    await op.getByRole('button', { name: 'Open payout for Jane Partner' }).click();
    await op.getByRole('button', { name: /^Mark payout paid/ }).click();
    await op.getByRole('status').filter({ hasText: 'Payout marked paid' }).waitFor();
    await expectAccessible(op, 'approvals and payouts');
    await pp.reload();
    await pp.locator('[data-balance="USD"]').filter({ hasText: '0.00 USD' }).waitFor();
    await pp.getByText('7.50 USD, paid').waitFor();
    await shot(SHOTS, pp, 'partner-portal');

    // The overview counts it all.
    await tab(op, 'Overview');
    await expect.poll(() => op.locator('[data-stat="sales"]').textContent()).toBe('1');
    expect(await op.locator('[data-stat="clicks"]').textContent()).toBe('1');
    expect(await op.locator('[data-stat="leads"]').textContent()).toBe('1');
    expect(await op.locator('[data-stat="revenue"]').textContent()).toBe('100.00 USD');
    // Gross, and net of the 25.00 refund, both labelled.
    expect(await op.locator('[data-stat="revenue-net"]').textContent()).toBe('75.00 USD');
    await op.getByText('Revenue (gross)').waitFor();
    expect(await op.locator('[data-stat="commissions"]').textContent()).toBe('7.50 USD');
    await expectAccessible(op, 'overview');
    await shot(SHOTS, op, 'overview');
    await rewardReviewJourney({ h, op, pp, programId, link, key });

    // Sign-out ends both sessions.
    await pp.getByRole('button', { name: 'Sign out' }).click();
    await pp.getByRole('heading', { name: 'Partner portal sign in' }).waitFor();
    await expectAccessible(pp, 'portal sign-in');
    await op.getByRole('button', { name: 'Sign out' }).click();
    await op.getByRole('heading', { name: 'Dashboard sign in' }).waitFor();
    await op.goto(`${base}/dashboard/programs/${programId}`);
    await op.getByRole('heading', { name: 'Dashboard sign in' }).waitFor();

    expect(problems).toEqual([]);
  });

  test('outbound events: an endpoint made on the page gets a sale, logged, replayed', { timeout: 90_000 }, async () => {
    const op = await newPage(1440, 900);
    await outboundEventsJourney({ h, base, op, receiver, tab, shots: SHOTS });
    expect(problems).toEqual([]);
  });

  test(
    'payout runs: PayPal details in the portal, a run, its file, a failure, a confirmation',
    { timeout: 90_000 },
    async () => {
      await payoutRunsJourney({
        h,
        base,
        op: await newPage(1440, 900),
        pp: await newPage(375, 812),
        tab,
        shots: SHOTS,
      });
      expect(problems).toEqual([]);
    },
  );

  test('the app is served with a strict CSP and no third-party origin', async () => {
    for (const path of [
      '/dashboard',
      '/dashboard/programs/1/events',
      '/dashboard/programs/1/outbound-events',
      '/dashboard/programs/1/payout-runs',
      '/portal',
      '/portal/invite/abc',
    ]) {
      const r = await fetch(`${base}${path}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await r.text();
      expect(html).not.toMatch(/https?:\/\//);
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    }
    expect((await fetch(`${base}/dashboard/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
  });
});
