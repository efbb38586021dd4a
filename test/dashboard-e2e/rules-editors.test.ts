/**
 * The rule editors in a real Chromium against the real server, in both modes: "flat $50 on a
 * customer's first payment, then 30% of renewals for 12 months" set in the Rewards form (inline
 * errors in plain words, the what-if preview beside it), the commissions it gives a first sale, a
 * renewal in month 2 and one in month 13; fraud rules and payout settings set in Settings' forms;
 * a partner moved into a group from the Partners page; the partner's terms in words on the portal.
 * axe-core on every page; `SCREENSHOTS_DIR=docs/screenshots` also writes the docs' screenshots.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DAY_MS } from '../../src/core/deps.ts';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  type Fixture,
  type Harness,
} from '../helpers/harness.ts';
import { rewardSales } from '../helpers/reward-sales.ts';
import { browserTestsEnabled, launchChromium } from '../tracker/browser-harness.ts';
import { expectAccessible, shot } from './page-checks.ts';
import { tab } from './webhook-log-journey.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.SCREENSHOTS_DIR;
let h: Harness;
let base: string;
let browser: Browser;
let f: Fixture;
const problems: string[] = [];

async function newPage(width: number, height: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addInitScript({ content: AXE_SOURCE });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => problems.push(`${page.url()}: ${err.message}`));
  return page;
}
const commissionOf = async (id: number | null) =>
  (await h.admin('GET', `/programs/${f.programId}/commissions?limit=500`)).commissions.find(
    (c: { id: number }) => c.id === id,
  );

describe.runIf(browserTestsEnabled())('rule editors in Chromium', () => {
  beforeAll(async () => {
    h = await createHarness();
    base = await h.listen();
    browser = await launchChromium();
    f = await createProgramFixture(h, { commission_rate_bps: 1_000, recurring_policy: 'lifetime' });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  test(
    'first-sale reward set in the form, settings forms, groups and the portal’s terms',
    { timeout: 120_000 },
    async () => {
      const { saleOf } = rewardSales(h);
      // A sale recorded under the program rate (10%), for the preview to replay.
      await clickAndLead(h, f, 'earlier-buyer');
      await saleOf(f, 'earlier-buyer', { amount_cents: 20_000 });

      const op = await newPage(1440, 1000);
      await op.goto(`${base}/dashboard`);
      await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.getByRole('heading', { name: 'Programs' }).waitFor();
      await op.goto(`${base}/dashboard/programs/${f.programId}/rewards`);
      await op.getByRole('heading', { name: 'Rewards', level: 1 }).waitFor();

      const first = op.getByRole('group', { name: "On a customer's first payment" });
      await first.getByRole('combobox', { name: 'Kind' }).selectOption('flat');
      await first.getByRole('textbox', { name: 'Amount in USD' }).fill('50');
      const sale = op.getByRole('group', { name: 'On each sale' });
      await sale.getByRole('combobox', { name: 'Kind' }).selectOption('percent');
      await sale.getByRole('textbox', { name: 'Percent of the sale' }).fill('300');
      await op.getByText('Enter a percentage between 0 and 100.').waitFor();
      await sale.getByRole('textbox', { name: 'Percent of the sale' }).fill('30');
      await op.getByRole('combobox', { name: 'Renewals earn' }).selectOption('months');
      const months = op.getByRole('textbox', { name: 'Months after the first payment' });
      await months.fill('0');
      await op.getByText('The number of months must be at least 1.').waitFor();
      expect(await months.getAttribute('aria-invalid')).toBe('true');
      await op.getByText('Fix the fields marked in the form to see the preview.').waitFor();
      await months.fill('12');
      // The preview beside the form: the earlier sale was the customer's first payment (10.00 → 50.00 under these rules).
      await op.getByTestId('preview-partners').getByText('Partner One: 20.00 USD → 50.00 USD').waitFor();
      await op.getByTestId('preview-totals').getByRole('cell', { name: '+30.00 USD' }).waitFor();
      await expectAccessible(op, 'rewards form');
      await shot(SHOTS, op, 'rewards-form');
      await op.getByRole('button', { name: 'Save rules' }).click();
      await op.getByRole('status').filter({ hasText: 'Rules saved.' }).waitFor();
      expect((await h.admin('GET', `/programs/${f.programId}`)).program.reward_rules).toEqual({
        first_sale: { type: 'flat', amounts: { USD: 5_000 } },
        sale: { type: 'percent', bps: 3_000 },
        recurring: { policy: 'months', months: 12 },
      });

      // The rules at work: $50 on the first payment, 30% in month 2, nothing in month 13.
      await clickAndLead(h, f, 'subscriber');
      const sub = { subscription_id: 'e2e-sub', sale_type: 'subscription', amount_cents: 20_000 };
      const start = h.clock.now;
      const firstSale = await saleOf(f, 'subscriber', sub);
      h.clock.now = new Date(start.getTime() + 31 * DAY_MS);
      const month2 = await saleOf(f, 'subscriber', { ...sub, is_recurring: true });
      h.clock.now = new Date(start.getTime() + 370 * DAY_MS);
      const month13 = await saleOf(f, 'subscriber', { ...sub, is_recurring: true });
      h.clock.now = start;
      expect(await commissionOf(firstSale.commission_id)).toMatchObject({
        amount_cents: 5_000,
        reward: { rule: 'first_sale' },
      });
      expect(await commissionOf(month2.commission_id)).toMatchObject({ amount_cents: 6_000, reward: { rule: 'sale' } });
      expect(month13.commission_id).toBeNull();
      const refund = await h.request('/api/v1/track/refund', {
        body: { transaction_id: month2.transactionId, refund_amount_cents: 10_000 },
        headers: bearer(f.liveKey),
      });
      expect(refund.body).toMatchObject({ status: 'refunded', deductionAmount: 3_000 });

      // The overview's commissions of the last 30 days, split: 20.00 + 50.00 earned, none held or reversed
      // (the renewals are dated ahead, by the clock moved above).
      await tab(op, 'Overview');
      await expect.poll(() => op.locator('[data-stat="commissions-earned"]').textContent()).toBe('70.00 USD');
      expect(await op.locator('[data-stat="commissions-held"]').textContent()).toBe('0.00 USD');
      expect(await op.locator('[data-stat="commissions-reversed"]').textContent()).toBe('0.00 USD');
      await op.getByText('Commissions reversed by refunds').waitFor();
      await expectAccessible(op, 'overview');

      // Fraud rules and payout settings in Settings' forms, an error in plain words first.
      await tab(op, 'Settings');
      await op.getByRole('checkbox', { name: /disposable email address/ }).check();
      await op.getByRole('combobox', { name: 'Pay through' }).selectOption('paypal');
      await op.getByRole('textbox', { name: 'Minimum in USD' }).fill('25');
      await op.getByRole('checkbox', { name: /^Partners may ask for a payout/ }).check();
      await op.getByRole('combobox', { name: 'Runs' }).selectOption('monthly');
      await op.getByRole('textbox', { name: /^On day of the month/ }).fill('31');
      await op.getByText('The day of the month must be at most 28.').waitFor();
      await op.getByRole('button', { name: 'Save settings' }).click();
      await op.getByRole('alert').filter({ hasText: 'Some fields need fixing first' }).waitFor();
      await op.getByRole('textbox', { name: /^On day of the month/ }).fill('5');
      await op.getByRole('button', { name: 'Save settings' }).click();
      await op.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
      const { program } = await h.admin('GET', `/programs/${f.programId}`);
      expect(program.fraud_rules).toEqual({ disposable_email: true });
      expect(program.payout_settings).toEqual({
        rail: 'paypal',
        minimum_cents: { USD: 2_500 },
        schedule: 'monthly',
        day_of_month: 5,
        hold_days: 0,
        partner_requests: true,
      });
      expect(program.commission_rate_bps).toBe(1_000);
      // The advanced view: the fraud rules as JSON, edited and applied to the form (a refusal in words first).
      const advanced = op.locator('details', { hasText: 'Fraud rules as JSON' });
      await advanced.locator('summary').click();
      const json = advanced.getByRole('textbox', { name: 'Fraud rules as JSON' });
      // Filled when the details open (the toggle event comes after the click).
      await expect.poll(() => json.inputValue()).not.toBe('');
      expect(JSON.parse(await json.inputValue())).toEqual({ disposable_email: true });
      await json.fill('{"self_referral": true, "fast_conversion_seconds": 0}');
      await advanced.getByRole('button', { name: 'Apply to the form' }).click();
      await advanced.locator('.error').first().waitFor();
      await json.fill('{"self_referral": true, "disposable_email": true}');
      await advanced.getByRole('button', { name: 'Apply to the form' }).click();
      await expect.poll(() => op.getByRole('checkbox', { name: /partner.s own/ }).isChecked()).toBe(true);
      await expectAccessible(op, 'settings forms');
      await shot(SHOTS, op, 'settings-forms');

      // A group, and the partner moved into it from the Partners page.
      const { group } = await h.admin('POST', `/programs/${f.programId}/partner-groups`, { name: 'Launch partners' });
      await tab(op, 'Partners');
      await op.getByRole('combobox', { name: 'Group of Partner One' }).selectOption({ label: 'Launch partners' });
      await op.getByRole('status').filter({ hasText: 'Partner One moved to Launch partners.' }).waitFor();
      const { partners } = await h.admin('GET', `/programs/${f.programId}/partners?limit=500`);
      expect(partners.find((p: { id: number }) => p.id === f.partnerId).group).toBe(group.id);
      await expectAccessible(op, 'partners with groups');

      // The partner's terms in words on the portal (the group has no rules of its own: the program's).
      const invite = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/invites`);
      const pp = await newPage(390, 844);
      await pp.goto(`${base}${new URL(invite.invite_url).pathname}`);
      await pp.getByLabel('New password', { exact: false }).first().fill('partner one password');
      await pp.getByLabel('Repeat the password').fill('partner one password');
      await pp.getByRole('button', { name: 'Set password and sign in' }).click();
      await pp.waitForURL(`${base}/portal`);
      await expect
        .poll(() => pp.getByTestId('partner-terms').getByRole('listitem').allTextContents())
        .toEqual([
          "50.00 USD on each customer's first payment, then 30 % of each later payment.",
          'Renewals earn for 12 months after the first payment.',
        ]);
      const row = (id: number | null) => pp.locator(`[data-commission-id="${id}"]`);
      expect(await row(firstSale.commission_id).getByTestId('net').textContent()).toBe('50.00 USD');
      // Month 2, half refunded: 30% of 200.00 less half, and the status says what happened.
      expect(await row(month2.commission_id).getByTestId('net').textContent()).toBe('30.00 USD');
      expect(await row(month2.commission_id).locator('.badge').textContent()).toBe('partly refunded');
      await expectAccessible(pp, 'portal terms');

      // The group's own rules, set in the same form ("Editing"): 25%, tiers from 2 and 5 sales a month.
      await tab(op, 'Rewards');
      await op.getByRole('combobox', { name: 'Editing' }).selectOption({ label: 'Group: Launch partners' });
      await op.getByRole('heading', { name: 'Rules of the group Launch partners' }).waitFor();
      await sale.getByRole('combobox', { name: 'Kind' }).selectOption('percent');
      await sale.getByRole('textbox', { name: 'Percent of the sale' }).fill('25');
      for (const [i, [from, pct]] of [
        ['2', '40'],
        ['5', '50'],
      ].entries()) {
        await op.getByRole('button', { name: 'Add a tier step' }).click();
        await op.getByRole('textbox', { name: `Step ${i + 1} from (sales)` }).fill(from!);
        const step = op.getByRole('group', { name: `Reward from step ${i + 1}` });
        await step.getByRole('combobox', { name: 'Kind' }).selectOption('percent');
        await step.getByRole('textbox', { name: 'Percent of the sale' }).fill(pct!);
      }
      await op.getByRole('button', { name: 'Save rules' }).click();
      await op.getByRole('status').filter({ hasText: 'Rules saved.' }).waitFor();
      await op
        .getByTestId('partner-groups')
        .getByRole('cell', { name: /^25 % of each sale\./ })
        .waitFor();
      await pp.reload();
      await expect
        .poll(() => pp.getByTestId('partner-terms').getByRole('listitem').allTextContents())
        .toEqual([
          '25 % of each sale.',
          'Renewals earn for as long as the customer keeps paying.',
          'From 2 sales in the calendar month: 40 % of each sale.',
          'From 5 sales in the calendar month: 50 % of each sale.',
        ]);
      // Two sales this month (the earlier buyer's and the subscriber's first): the first tier, the next at 5.
      expect(await pp.getByTestId('tier-progress').textContent()).toContain(
        'You are in tier 1 of 2 (40 % of each sale); the next tier starts at 5 sales.',
      );
      await expectAccessible(pp, 'portal terms with tiers');
      await shot(SHOTS, pp, 'portal-terms');
      expect(problems).toEqual([]);
    },
  );
});
