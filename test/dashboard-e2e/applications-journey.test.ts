/**
 * Partner applications in a real Chromium against the real server: the operator switches the
 * form on in the dashboard (Applications), a new applicant signs up on the public page on a phone,
 * a team member with the `admin` role approves them (recorded as theirs in the audit log), and the applicant sets a password through the sign-in link and
 * signs in to the portal. axe-core on every page, no CSP violation; screenshots are saved
 * (SCREENSHOTS_DIR, else a temporary folder).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.ts';
import { addStaff, STAFF_PASSWORD } from '../helpers/staff.ts';
import { browserTestsEnabled, launchChromium } from '../tracker/browser-harness.ts';
import { expectAccessible, shot } from './page-checks.ts';
import { tab } from './webhook-log-journey.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.SCREENSHOTS_DIR ?? join(tmpdir(), 'applications-e2e');

let h: Harness;
let base: string;
let browser: Browser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

async function newPage(width: number, height: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addInitScript({ content: AXE_SOURCE });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => problems.push(`${page.url()}: ${err.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy|Refused to/i.test(m.text()))
      problems.push(`${page.url()}: ${m.text()}`);
  });
  return page;
}

describe.runIf(browserTestsEnabled())('partner applications in Chromium', () => {
  beforeAll(async () => {
    h = await createHarness({ APPLICATION_LIMIT_PER_MINUTE: '1000' });
    base = await h.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await h?.close();
  });

  test(
    'an applicant signs up, is approved in the dashboard and signs in to the portal',
    { timeout: 180_000 },
    async () => {
      const { program } = await h.admin('POST', '/programs', { name: 'Acme Shop' });
      const op = await newPage(1440, 900);
      await op.goto(`${base}/dashboard`);
      await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.getByRole('heading', { name: 'Programs' }).waitFor();
      await op.goto(`${base}/dashboard/programs/${program.id}`);

      // The operator switches the form on, with a question and terms.
      await tab(op, 'Applications');
      await op.getByLabel('Take applications').check();
      await op
        .getByLabel(/^Questions \(JSON\)/)
        .fill('[{"key": "website", "label": "Website", "type": "url", "required": true}]');
      await op.getByLabel('Program terms').fill('Promote the shop honestly.');
      await op.getByLabel(/^Terms version/).fill('v1');
      await op.getByRole('button', { name: 'Save form' }).click();
      await op.getByText('Application form saved.').waitFor();
      const pageUrl = `${base}/apply/${program.id}`;
      await op.getByRole('link', { name: pageUrl }).waitFor();
      await expectAccessible(op, 'applications');

      // Email settings: sender name and reply-to.
      await tab(op, 'Email settings');
      await op.getByLabel('Sender name').fill('Acme Partners');
      await op.getByLabel('Reply-to address').fill('partners@acme.example');
      await op.getByRole('button', { name: 'Save email settings' }).click();
      await op.getByText('Email settings saved.').waitFor();
      await expectAccessible(op, 'email settings');
      await shot(SHOTS, op, 'email-settings');

      // A new applicant on a phone: a mistake first, explained beside its field, then the application.
      const ap = await newPage(375, 812);
      await ap.goto(pageUrl);
      await ap.getByRole('heading', { name: 'Apply to the Acme Shop partner program' }).waitFor();
      await expectAccessible(ap, 'apply page', { strict: true });
      await ap.getByLabel('Your name').fill('Grace Hopper');
      await ap.getByLabel('Email').fill('grace@example.com');
      await ap.getByLabel('Website').fill('grace.example');
      await ap.getByRole('button', { name: 'Send application' }).click();
      await ap.getByText('"Website" must be a web address starting with https://.').waitFor();
      await ap.getByText('Please accept the program terms to apply.').waitFor();
      await expectAccessible(ap, 'apply page with problems', { strict: true });
      await shot(SHOTS, ap, 'apply-page-problems');
      await ap.getByLabel('Website').fill('https://grace.example');
      await ap.getByLabel('I accept the program terms').check();
      await ap.getByRole('button', { name: 'Send application' }).click();
      await ap.getByRole('heading', { name: 'Application received' }).waitFor();
      await expectAccessible(ap, 'application received', { strict: true });

      // A member of the team with the `admin` role approves it: the sign-in link is shown once.
      await addStaff(h, program.id, 'adam@acme.example', 'admin');
      const ad = await newPage(1440, 900);
      await ad.goto(`${base}/dashboard/programs/${program.id}`);
      await ad.getByLabel('Email').fill('adam@acme.example');
      await ad.getByLabel('Password').fill(STAFF_PASSWORD);
      await ad.getByRole('button', { name: 'Continue with email' }).click();
      await ad.getByRole('heading', { name: 'Overview: Acme Shop' }).waitFor();
      await tab(ad, 'Applications');
      await ad.getByRole('cell', { name: 'grace@example.com' }).waitFor();
      await shot(SHOTS, ad, 'applications');
      await ad.getByLabel('Select Grace Hopper').check();
      await ad.getByRole('button', { name: 'Approve selected' }).click();
      await ad.getByText('1 approved.').waitFor();
      const invite = (await ad.locator('code', { hasText: '/portal/invite/' }).textContent())?.trim() ?? '';
      expect(invite).toMatch(new RegExp(`^${base}/portal/invite/[\\w-]{40,}$`));
      await expectAccessible(ad, 'applications after approval');
      const [approval] = (await h.admin('GET', `/programs/${program.id}/audit?action=approve`)).entries;
      expect(approval).toMatchObject({ actor_kind: 'staff', actor_email: 'adam@acme.example', via: 'dashboard' });

      // The applicant sets a password, lands in the portal, signs out and signs in again by email.
      await ap.goto(invite);
      await ap.getByText('You were invited as').waitFor();
      await ap.getByLabel('New password', { exact: false }).first().fill('grace partner password');
      await ap.getByLabel('Repeat the password').fill('grace partner password');
      await ap.getByRole('button', { name: 'Set password and sign in' }).click();
      await ap.waitForURL(`${base}/portal`);
      expect(await ap.getByTestId('referral-link').inputValue()).toContain(`program=${program.id}&aff=gracehopper`);
      await ap.getByRole('button', { name: 'Sign out' }).click();
      await ap.getByRole('heading', { name: 'Partner portal sign in' }).waitFor();
      await ap.getByLabel('Referral code or email').fill('grace@example.com');
      await ap.getByLabel('Password').fill('grace partner password');
      await ap.getByRole('button', { name: 'Sign in' }).click();
      await ap.waitForURL(`${base}/portal`);
      await expectAccessible(ap, 'portal home');
      await shot(SHOTS, ap, 'applicant-portal');

      for (const name of ['applications', 'email-settings', 'apply-page-problems', 'applicant-portal'])
        expect(existsSync(join(SHOTS, `${name}.png`)), name).toBe(true);
      expect(problems).toEqual([]);
    },
  );
});
