/**
 * The dashboard walkthrough's reward steps (dashboard-walkthrough.test.ts runs them in its
 * Chromium). Setup: a what-if of rules set in the form with nothing recorded yet, the JSON view and
 * an invalid document refused in plain words, a group made and the partner moved into it from the
 * Partners page. Review: a reward per lead earned by a signup and
 * taken back by the operator on Approvals & payouts; fraud rules switched on in Settings' form (a
 * wrong value refused in plain words first), a sale
 * seconds after its click held, the rule shown and the commission released, credited to the
 * partner's balance in the portal.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { bearer, type Harness } from '../helpers/harness.ts';
import { expectAccessible } from './page-checks.ts';
import { tab } from './webhook-log-journey.ts';

export async function rewardsSetup(op: Page): Promise<void> {
  await tab(op, 'Rewards');
  const sale = op.getByRole('group', { name: 'On each sale' });
  await sale.getByRole('combobox', { name: 'Kind' }).selectOption('flat');
  await sale.getByRole('textbox', { name: 'Amount in USD' }).fill('5');
  await op.getByTestId('preview-totals').getByRole('cell', { name: 'No attributed sales in the period.' }).waitFor();
  // The same rules as JSON (the advanced view); a wrong document is refused in plain words.
  await op.getByText('Advanced: the rules as JSON').click();
  await expect
    .poll(async () => JSON.parse((await op.getByTestId('reward-rules').inputValue()) || 'null'))
    .toEqual({ sale: { type: 'flat', amounts: { USD: 500 } } });
  await op.getByTestId('reward-rules').fill('{"sale": {"type": "flat", "amounts": {}}}');
  await op.getByRole('button', { name: 'Use this JSON' }).click();
  await op.getByText('The reward on each sale: name an amount in at least one currency.').waitFor();
  await sale.getByRole('combobox', { name: 'Kind' }).selectOption('none');
  await op.getByRole('button', { name: 'Save rules' }).click();
  await op.getByText('Rules saved.').waitFor();
  const groupForm = op.getByRole('form', { name: 'Add a partner group' });
  await groupForm.getByRole('textbox', { name: 'Group name' }).fill('Podcasters');
  await groupForm.getByRole('button', { name: 'Add group' }).click();
  await op.getByTestId('partner-groups').getByRole('cell', { name: 'Podcasters' }).waitFor();
  await expectAccessible(op, 'rewards');
  // Partners are moved into a group on the Partners page.
  await tab(op, 'Partners');
  await op.getByRole('combobox', { name: 'Group of Jane Partner' }).selectOption({ label: 'Podcasters' });
  await op.getByRole('status').filter({ hasText: 'Jane Partner moved to Podcasters.' }).waitFor();
  await tab(op, 'Rewards');
  await op.getByTestId('partner-groups').getByRole('cell', { name: 'Jane Partner' }).waitFor();
}

export async function rewardReviewJourney(o: {
  h: Harness;
  /** The operator's page, signed in, on the program. */
  op: Page;
  /** The partner's portal page, signed in. */
  pp: Page;
  programId: number;
  /** The partner's referral link. */
  link: string;
  /** The program's API key. */
  key: string;
}): Promise<void> {
  const { h, op, pp, programId, link, key } = o;
  // A reward per lead: the signup earns it; the operator takes it back on Approvals & payouts.
  await h.admin('PATCH', `/programs/${programId}`, { reward_rules: { lead: { currency: 'USD', cents: 300 } } });
  const leadClick = await h.request('/api/v1/track/click', { body: { affiliate_url: link } });
  const signup = await h.request('/api/v1/track/lead', {
    body: { customer_key: 'signup-only', click_id: leadClick.body.click_id },
    headers: bearer(key),
  });
  expect(signup.body.commission_id).toEqual(expect.any(Number));
  await tab(op, 'Approvals & payouts');
  await op.getByText('lead reward', { exact: true }).waitFor();
  await op.getByRole('button', { name: `Reverse lead reward ${signup.body.commission_id}` }).click();
  await op.getByRole('status').filter({ hasText: 'Lead reward reversed.' }).waitFor();
  await h.admin('PATCH', `/programs/${programId}`, { reward_rules: null });

  // Fraud rules on (Settings): a sale seconds after its click is held; the operator sees the rule and releases it.
  await tab(op, 'Settings');
  const fast = op.getByRole('textbox', { name: /^the sale came within this many minutes/ });
  await fast.fill('soon');
  await op.getByText('Enter the minutes as a number.').waitFor();
  await fast.fill('60');
  await op.getByRole('button', { name: 'Save settings' }).click();
  await op.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
  await expectAccessible(op, 'settings');
  const fastClick = await h.request('/api/v1/track/click', { body: { affiliate_url: link } });
  await h.request('/api/v1/track/lead', {
    body: { customer_key: 'fast-buyer', click_id: fastClick.body.click_id },
    headers: bearer(key),
  });
  const fastSale = await h.request('/api/v1/track/sale', {
    body: { transaction_id: 'fast-1', amount_cents: 2_000, customer_key: 'fast-buyer' },
    headers: bearer(key),
  });
  expect(fastSale.body).toMatchObject({ success: true, commission_id: expect.any(Number) });
  await tab(op, 'Approvals & payouts');
  await op.getByText('held: fast conversion').waitFor();
  await expectAccessible(op, 'held commission');
  await op.getByRole('button', { name: `Release commission ${fastSale.body.commission_id}` }).click();
  await op.getByRole('status').filter({ hasText: 'Commission released and credited.' }).waitFor();
  await pp.reload();
  await pp.locator('[data-balance="USD"]').filter({ hasText: '2.00 USD' }).waitFor();
}
