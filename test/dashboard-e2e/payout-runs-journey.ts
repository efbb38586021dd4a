/**
 * The dashboard walkthrough's payout journey (dashboard-walkthrough.test.ts runs it in its
 * Chromium): the partner enters PayPal details in the portal (shown back only as a hint), the
 * operator previews and starts a PayPal run on the Payout runs page, downloads the PayPal file (parsed back),
 * marks one payout failed (the balance returns) and confirms the next run's payout paid; axe-core
 * (no violation of any impact) on both pages.
 */
import type { Page } from 'playwright-core';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import { ADMIN_TOKEN, bearer, clickAndLead, createProgramFixture, type Harness } from '../helpers/harness.ts';
import { expectAccessible, shot } from './page-checks.ts';

export async function payoutRunsJourney(o: {
  h: Harness;
  base: string;
  /** Two fresh pages, not signed in: the operator's and the partner's. */
  op: Page;
  pp: Page;
  tab(page: Page, name: string): Promise<void>;
  shots: string | undefined;
}): Promise<void> {
  const { h, base, op, pp, tab, shots } = o;
  const f = await createProgramFixture(h, {
    commission_rate_bps: 1000,
    payout_settings: { rail: 'paypal', minimum_cents: { USD: 500 } },
  });

  // The partner accepts an invite and records PayPal details.
  const invite = await h.admin('POST', `/programs/${f.programId}/partners/${f.partnerId}/invites`);
  await pp.goto(`${base}${new URL(invite.invite_url).pathname}`);
  await pp.getByLabel('New password', { exact: false }).first().fill('payout partner password');
  await pp.getByLabel('Repeat the password').fill('payout partner password');
  await pp.getByRole('button', { name: 'Set password and sign in' }).click();
  await pp.waitForURL(`${base}/portal`);
  await pp.getByText('No payout details yet').waitFor();
  await pp.getByRole('combobox', { name: 'Method' }).selectOption('paypal');
  await pp.getByRole('textbox', { name: 'Email' }).fill('payee@example.com');
  await pp.getByRole('button', { name: 'Save payout details' }).click();
  await pp.getByRole('status').filter({ hasText: 'Payout details saved.' }).waitFor();
  expect(await pp.getByTestId('payout-method').textContent()).toContain('p…@example.com');
  expect(await pp.content()).not.toContain('payee@example.com');
  await expectAccessible(pp, 'portal payout details', { strict: true });

  // Two credited commissions of 12.34 USD and 10.00 USD.
  for (const [i, cents] of [123_40, 100_00].entries()) {
    await clickAndLead(h, f, `payee-${i}`);
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: `payout-e2e-${i}`, amount_cents: cents, customer_key: `payee-${i}` },
      headers: bearer(f.liveKey),
    });
    await h.admin('POST', `/programs/${f.programId}/commissions/${sale.body.commission_id}/approve`, {});
  }

  // The operator starts a PayPal run and downloads its file.
  await op.goto(`${base}/dashboard/sign-in`);
  await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await op.getByRole('button', { name: 'Sign in' }).click();
  await op.getByRole('heading', { name: 'Programs' }).waitFor();
  await op.goto(`${base}/dashboard/programs/${f.programId}`);
  await tab(op, 'Payout runs');
  await op.getByText('No payout run yet.').waitFor();
  await op.getByRole('button', { name: 'Preview payout run' }).click();
  await op.getByRole('button', { name: 'Start payout run' }).click();
  await op
    .getByRole('status')
    .filter({ hasText: /^Run \d+: 1 payout/ })
    .waitFor();
  const run = op.getByRole('region', { name: /^Payout run \d+$/ }).first();
  const runId = Number((await run.getAttribute('aria-label'))!.replace('Payout run ', ''));
  const [download] = await Promise.all([
    op.waitForEvent('download'),
    op.getByRole('link', { name: `Download PayPal CSV of run ${runId}` }).click(),
  ]);
  const rows = parse(await streamText(await download.createReadStream())) as string[][];
  expect(rows.map((r) => r.slice(0, 3))).toEqual([['payee@example.com', '22.34', 'USD']]);
  await expectAccessible(op, 'payout runs', { strict: true });
  await shot(shots, op, 'payout-runs');

  // The bank refused it: marked failed, the amount is back; the next run is confirmed paid.
  const payoutId = Number(await run.locator('tr[data-payout-id]').getAttribute('data-payout-id'));
  await op.getByRole('textbox', { name: `Failure reason for payout ${payoutId}` }).fill('PayPal account unverified');
  await op.getByRole('button', { name: `Mark failed payout ${payoutId}` }).click();
  await op.getByRole('status').filter({ hasText: 'its amount is back in the balance' }).waitFor();
  await run.getByText('PayPal account unverified').waitFor();
  const statement = () => h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/statement`);
  expect((await statement()).currencies[0]).toMatchObject({ balance_cents: 2_234, reconciles: true });
  await op.getByRole('button', { name: 'Preview payout run' }).click();
  await op.getByRole('button', { name: 'Start payout run' }).click();
  await op
    .getByRole('status')
    .filter({ hasText: /^Run \d+: 1 payout/ })
    .waitFor();
  await op.getByRole('button', { name: /^Confirm all paid in run \d+$/ }).click();
  await op.getByRole('status').filter({ hasText: 'Run confirmed paid.' }).waitFor();
  expect((await statement()).currencies[0]).toMatchObject({ balance_cents: 0, payouts_cents: 2_234, reconciles: true });
  await pp.reload();
  await pp.locator('[data-balance="USD"]').filter({ hasText: '0.00 USD' }).waitFor();
  // The partner's statement download names every change and its cause, hash-chained.
  const [statementCsv] = await Promise.all([
    pp.waitForEvent('download'),
    pp.getByRole('link', { name: /^statement\.csv/ }).click(),
  ]);
  const [header, ...lines] = parse(await streamText(await statementCsv.createReadStream())) as string[][];
  const kind = header!.indexOf('kind');
  expect(lines.map((l) => l[kind])).toEqual([
    'commission_credit',
    'commission_credit',
    'payout',
    'payout_failed',
    'payout',
  ]);
  expect(lines.every((l) => /^[0-9a-f]{64}$/.test(l[header!.indexOf('hash')]!))).toBe(true);
}

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}
