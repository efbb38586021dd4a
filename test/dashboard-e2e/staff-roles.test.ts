/**
 * Staff roles in a real Chromium against the real server: an `analyst` signs in with email and
 * password, sees the overview, finds no payout or approval controls on the payouts page, and the
 * API refuses the payout they could still send by hand (403 `forbidden`); the operator, on the
 * same page, has the controls (so their absence is the role's doing). The Team and Audit log
 * pages pass axe. Screenshots go to SCREENSHOTS_DIR (default: a temporary directory).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ADMIN_TOKEN,
  bearer,
  clickAndLead,
  createHarness,
  createProgramFixture,
  type Harness,
} from '../helpers/harness.ts';
import { addStaff, STAFF_PASSWORD } from '../helpers/staff.ts';
import { browserTestsEnabled, launchChromium } from '../tracker/browser-harness.ts';
import { generateSealingKey } from '../../src/core/shared/sealed-secrets.ts';
import { expectAccessible, shot } from './page-checks.ts';
import { tab } from './webhook-log-journey.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'staff-roles-e2e');

let h: Harness;
let base: string;
let browser: Browser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript({ content: AXE_SOURCE });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => problems.push(`${page.url()}: ${err.message}`));
  return page;
}

describe.runIf(browserTestsEnabled())('staff roles in the dashboard', () => {
  beforeAll(async () => {
    h = await createHarness({ DATA_ENCRYPTION_KEYS: generateSealingKey('e2e') });
    base = await h.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await h?.close();
  });

  test('an analyst sees the overview and cannot pay out; the operator can', { timeout: 180_000 }, async () => {
    const f = await createProgramFixture(h, { commission_rate_bps: 1000, hold_period_days: 30 });
    await clickAndLead(h, f, 'e2e-customer');
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'e2e-1', amount_cents: 20_000, customer_key: 'e2e-customer' },
      headers: bearer(f.liveKey),
    });
    await h.admin('POST', `/programs/${f.programId}/commissions/${sale.body.commission_id}/approve`, {});
    await addStaff(h, f.programId, 'ana@example.test', 'analyst');

    // The analyst signs in with email and password.
    const an = await newPage();
    await an.goto(`${base}/dashboard/programs/${f.programId}`);
    await an.getByRole('heading', { name: 'Dashboard sign in' }).waitFor();
    await expectAccessible(an, 'sign-in with email and token');
    await shot(SHOTS, an, 'staff-sign-in');
    await an.getByLabel('Email').fill('ana@example.test');
    await an.getByLabel('Password').fill(STAFF_PASSWORD);
    await an.getByRole('button', { name: 'Continue with email' }).click();
    await an.getByRole('heading', { name: 'Overview: Acme' }).waitFor();
    await expectAccessible(an, 'analyst overview');
    await shot(SHOTS, an, 'analyst-overview');
    const nav = an.getByRole('navigation', { name: 'Program pages' });
    await nav.getByRole('link', { name: 'Records', exact: true }).waitFor();
    expect(await nav.getByRole('link', { name: 'Settings', exact: true }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Payout runs', exact: true }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Audit log', exact: true }).count()).toBe(0);
    await nav.getByRole('link', { name: 'Team', exact: true }).waitFor();

    // The payouts page: the commission and the balance are shown, no control to act on them.
    await tab(an, 'Approvals & payouts');
    await an.getByRole('region', { name: 'Account of Partner One' }).waitFor();
    await an.getByText('View only').first().waitFor();
    for (const name of ['Open payout', 'Pay now', 'Approve', 'Mark payout paid'])
      expect(await an.getByRole('button', { name }).count(), name).toBe(0);
    await expectAccessible(an, 'analyst payouts');
    await shot(SHOTS, an, 'analyst-payouts');

    // Sent by hand with the analyst's session, the payout is refused.
    const refused = await an.evaluate(
      async ({ programId, partnerId }) => {
        const s = await (await fetch('/api/v1/dashboard/session')).json();
        const r = await fetch(`/api/v1/admin/programs/${programId}/partners/${partnerId}/payouts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': s.csrf_token },
          body: JSON.stringify({ currency: 'USD', amount_cents: 100 }),
        });
        return { status: r.status, body: await r.json() };
      },
      { programId: f.programId, partnerId: f.partnerId },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');

    // The operator, on the same page, has the controls.
    const op = await newPage();
    await op.goto(`${base}/dashboard/sign-in`);
    await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await op.getByRole('button', { name: 'Sign in', exact: true }).click();
    await op.getByRole('heading', { name: 'Programs' }).waitFor();
    await op.goto(`${base}/dashboard/programs/${f.programId}/payouts`);
    await op.getByRole('button', { name: 'Open payout for Partner One' }).waitFor();

    // The Team page: the analyst is listed; the operator invites a payouts member.
    await tab(op, 'Team');
    await op.getByRole('cell', { name: 'ana@example.test', exact: true }).waitFor();
    await op.getByRole('form', { name: 'Invite a member' }).getByLabel('Email').fill('paula@example.test');
    await op.getByRole('form', { name: 'Invite a member' }).getByLabel('Role').selectOption('payouts');
    await op.getByRole('button', { name: 'Invite', exact: true }).click();
    await op.getByText('/dashboard/invite/').waitFor();
    await expectAccessible(op, 'team');
    await shot(SHOTS, op, 'team');

    // The Audit log page: the invitation is there, by the operator, from the dashboard.
    await tab(op, 'Audit log');
    await op.getByRole('cell', { name: 'POST /programs/:id/staff' }).first().waitFor();
    await expectAccessible(op, 'audit log');
    await shot(SHOTS, op, 'audit-log');
    const entries = (await h.admin('GET', `/programs/${f.programId}/audit?action=staff`)).entries;
    expect(entries[0]).toMatchObject({ via: 'dashboard', actor_kind: 'operator' });
    expect(problems).toEqual([]);
  });
});
