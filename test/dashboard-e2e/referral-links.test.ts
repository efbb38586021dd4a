/**
 * Referral links in a real Chromium: the merchant sets the program's landing URL on the Settings
 * page (an address off the domain is refused in plain words first), the Partners page shows the
 * partner's link and builds one to another page, and the partner, in the portal, sees the default
 * link, is told why a page of another site cannot be linked, and copies a link to another page of
 * the shop. axe-core on each page, no page error or CSP violation.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, createHarness, createProgramFixture, type Harness } from '../helpers/harness.ts';
import { browserTestsEnabled, launchChromium } from '../tracker/browser-harness.ts';
import { invite } from '../portal/portal-sessions.ts';
import { expectAccessible, openPage, shot } from './page-checks.ts';
import { tab } from './webhook-log-journey.ts';

const SHOTS = process.env.SCREENSHOTS_DIR;

let h: Harness;
let base: string;
let browser: Browser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

async function newPage(width: number, height: number): Promise<Page> {
  const page = await openPage(browser, width, height, problems);
  contexts.push(page.context());
  return page;
}

describe.runIf(browserTestsEnabled())('referral links: landing URL and links to other pages', () => {
  beforeAll(async () => {
    h = await createHarness();
    base = await h.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await h?.close();
  });

  test(
    'the merchant sets the landing URL; the partner copies a link to another page',
    { timeout: 120_000 },
    async () => {
      const f = await createProgramFixture(h, { name: 'Acme Shop', domain: 'shop.example.com' }, 'janelinks');

      // The merchant signs in and sets the landing URL on the Settings page.
      const op = await newPage(1280, 900);
      await op.goto(`${base}/dashboard`);
      await op.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await op.getByRole('button', { name: 'Sign in' }).click();
      await op.getByRole('heading', { name: 'Programs' }).waitFor();
      await op.goto(`${base}/dashboard/programs/${f.programId}`);
      await tab(op, 'Settings');
      const landing = op.getByRole('textbox', { name: /^Landing URL/ });
      await landing.fill('https://evil.example/pricing');
      expect(await op.getByTestId('landing-url-error').textContent()).toBe(
        "Use an address on the program's domain, shop.example.com (this one is on evil.example).",
      );
      await op.getByRole('button', { name: 'Save settings' }).click();
      await op.getByText('Some fields need fixing first').waitFor();
      expect((await h.admin('GET', `/programs/${f.programId}`)).program.landing_url).toBeNull();
      await landing.fill('https://shop.example.com/pricing?plan=pro#faq');
      expect(await op.getByTestId('landing-url-error').count()).toBe(0);
      await op.getByRole('button', { name: 'Save settings' }).click();
      await op.getByText('Settings saved.').waitFor();
      expect((await h.admin('GET', `/programs/${f.programId}`)).program.landing_url).toBe(
        'https://shop.example.com/pricing?plan=pro#faq',
      );
      await expectAccessible(op, 'settings with a landing URL');

      // The Partners page: the partner's default link, and one to another page.
      await tab(op, 'Partners');
      const links = op.getByRole('region', { name: 'Partner links' });
      expect(await links.getByTestId('referral-link').inputValue()).toBe(
        'https://shop.example.com/pricing?plan=pro&aff=janelinks#faq',
      );
      await links.getByRole('textbox', { name: /^Link to another page/ }).fill('/blog/launch');
      await links.getByRole('button', { name: 'Make link' }).click();
      expect(await links.getByTestId('page-link').inputValue()).toBe(
        'https://shop.example.com/blog/launch?aff=janelinks',
      );
      await expectAccessible(op, 'partners with links');
      await shot(SHOTS, op, 'partner-links');

      // The partner, in the portal: the default link, a refused address, a copied link to another page.
      const pp = await newPage(375, 812);
      await pp.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      await pp.goto(`${base}/portal/invite/${await invite(h, f, f.partnerId)}`);
      await pp.getByLabel('New password', { exact: false }).first().fill('jane links password');
      await pp.getByLabel('Repeat the password').fill('jane links password');
      await pp.getByRole('button', { name: 'Set password and sign in' }).click();
      await pp.waitForURL(`${base}/portal`);
      expect(await pp.getByTestId('referral-link').inputValue()).toBe(
        'https://shop.example.com/pricing?plan=pro&aff=janelinks#faq',
      );
      const page = pp.getByRole('textbox', { name: /^Link to another page/ });
      await page.fill('https://evil.example/deal');
      await pp.getByRole('button', { name: 'Make link' }).click();
      expect(await pp.getByRole('alert').filter({ hasText: 'evil.example' }).textContent()).toContain(
        "Use an address on the program's domain, shop.example.com",
      );
      expect(await pp.getByTestId('page-link').count()).toBe(0);
      await page.fill('https://shop.example.com/products/kettle?color=red#reviews');
      await pp.getByRole('button', { name: 'Make link' }).click();
      const built = 'https://shop.example.com/products/kettle?color=red&aff=janelinks#reviews';
      expect(await pp.getByTestId('page-link').inputValue()).toBe(built);
      await pp.getByRole('button', { name: 'Copy page link' }).click();
      await pp.getByText('Copied.').waitFor();
      expect(await pp.evaluate(() => navigator.clipboard.readText())).toBe(built);
      await expectAccessible(pp, 'portal links');
      await shot(SHOTS, pp, 'portal-page-link');
      expect(problems).toEqual([]);
    },
  );
});
