/**
 * Issue 5, end to end: a real headless Chromium on the real server's demo page, the merchant
 * backend on the server client, the service's own database as the witness.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createTrackerClient } from '../../tracker/src/client.ts';
import { createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';
import { browserTestsEnabled, launchChromium, openPage } from '../tracker/browser-harness.ts';
import {
  callTracker,
  cookie,
  ensureFreshTrackerBundle,
  expectExpiryInDays,
  recordApiRequests,
  rows,
  signupOnPage,
  visit,
} from './e2e-helpers.ts';

const EMAIL_HASH_SECRET = 'browser-journey-email-hash-secret-0123456789';
/** The stored email hash: HMAC-SHA256 under the server's EMAIL_HASH_SECRET. */
const emailHash = (s: string) => createHmac('sha256', EMAIL_HASH_SECRET).update(s).digest('hex');
const COOKIE_DAYS = 45; // not the 60-day default, so the cookie provably follows the program

describe.runIf(browserTestsEnabled())('browser tracker on the real service', { timeout: 60_000 }, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: Error[];
  let consoleErrors: string[];

  beforeAll(async () => {
    await ensureFreshTrackerBundle();
    [h, browser] = await Promise.all([createHarness({ EMAIL_HASH_SECRET }), launchChromium()]);
    base = await h.listen();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });
  beforeEach(async () => {
    ({ context, page, pageErrors } = await openPage(browser));
    consoleErrors = [];
    // A CSP violation or a failed tracker call shows up here, not as a page error.
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  });
  afterEach(async () => {
    await context.close();
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  const program = (config: Record<string, unknown> = {}): Promise<Fixture> =>
    createProgramFixture(h, {
      domain: '127.0.0.1',
      cookie_duration_days: COOKIE_DAYS,
      commission_rate_bps: 1000,
      ...config,
    });

  test('partner link → click cookie → signup on the page → sale, partial and full refund from the backend', async () => {
    const f = await program();
    const landing = `${base}/demo?program=${f.programId}&aff=${f.partnerCode}`;
    await visit(page, landing);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id='));

    // The click: one row on the server, its id in a cookie that lives for the program's cookie duration.
    const cookies = await context.cookies();
    const clickCookie = cookie(cookies, 'tracker_click_id');
    expect(clickCookie).toMatchObject({ domain: '127.0.0.1', path: '/', sameSite: 'Lax', httpOnly: false });
    expectExpiryInDays(clickCookie, COOKIE_DAYS);
    const clickId = clickCookie!.value;
    const clicks = await rows(h).clicks(f.programId);
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatchObject({
      id: clickId,
      partner: f.partnerId,
      affiliateUrl: landing,
      pageUrl: landing,
      visitorId: cookie(cookies, 'tracker_visitor_id')?.value,
    });
    await page.waitForFunction(() => document.getElementById('state')?.textContent?.includes('"hasAttribution": true'));
    expect(JSON.parse((await page.textContent('#state'))!)).toEqual({
      clickId,
      programId: f.programId,
      hasAttribution: true,
      affiliateUrl: landing,
      lastError: null,
    });

    // Signup through the page's form binds the merchant's user id to the click; the email is only hashed.
    const answer = await signupOnPage(page, 'user-42', 'Buyer@Example.com');
    expect(answer).toMatchObject({ success: true, customer_key: 'user-42', click_id: clickId });
    const customers = await rows(h).customers(f.programId);
    expect(customers).toHaveLength(1);
    expect(customers[0]).toMatchObject({
      customerKey: 'user-42',
      click: clickId,
      partner: f.partnerId,
      emailHash: emailHash('buyer@example.com'),
    });

    // The merchant backend reports the sale by its own user id; the key never touched the page.
    const client = createTrackerClient({ apiKey: f.liveKey, apiUrl: base });
    const sale = await client.trackSale({
      customerExternalId: 'user-42',
      amount: 4900,
      taxCents: 400,
      invoiceId: 'inv-1001',
    });
    expect(sale).toMatchObject({
      ok: true,
      status: 200,
      error: undefined,
      data: { success: true, sale_id: expect.any(Number), commission_id: expect.any(Number) },
    });
    const { sale_id: saleId, commission_id: commissionId } = sale.data as { sale_id: number; commission_id: number };
    const [saleRow] = await rows(h).sales(f.programId);
    expect(saleRow).toMatchObject({
      id: saleId,
      amountCents: 4900,
      taxCents: 400,
      partner: f.partnerId,
      clickId,
      refundedCents: 0,
    });
    // 10% of the amount as sent; tax is ignored for the commission.
    expect(await rows(h).commission(commissionId)).toMatchObject({
      partner: f.partnerId,
      sale: saleId,
      amountCents: 490,
      reversedCents: 0,
      status: 'pending',
      currency: 'USD',
    });

    const partial = await client.trackRefund({
      invoiceId: 'inv-1001',
      refundAmountCents: 1225,
      refundId: 're-1',
      refundReason: 'damaged',
    });
    expect(partial).toMatchObject({
      ok: true,
      status: 200,
      data: { success: true, status: 'refunded', deductionAmount: 123, commission_id: commissionId },
    });
    expect(await rows(h).commission(commissionId)).toMatchObject({
      status: 'refunded',
      amountCents: 490,
      reversedCents: 123,
      reason: 'damaged',
    });

    const rest = await client.trackRefund({ invoiceId: 'inv-1001' });
    expect(rest).toMatchObject({
      ok: true,
      data: { success: true, status: 'reversed', deductionAmount: 367, commission_id: commissionId },
    });
    expect(await rows(h).commission(commissionId)).toMatchObject({
      status: 'reversed',
      amountCents: 490,
      reversedCents: 490,
    });
    expect((await rows(h).sales(f.programId))[0]!.refundedCents).toBe(4900);

    const again = await client.trackRefund({ invoiceId: 'inv-1001', refundAmountCents: 100, refundId: 're-3' });
    expect(again).toMatchObject({ ok: true, data: { success: true, status: 'skipped', commission_id: commissionId } });
    expect(await rows(h).commission(commissionId)).toMatchObject({ status: 'reversed', reversedCents: 490 });
  });

  test('reloading the partner link keeps one click row (the click is overwritten, not duplicated); a program without domain works on a local host', async () => {
    const f = await program({ domain: null }); // like the demo program of a first embedded start
    const landing = `${base}/demo?program=${f.programId}&aff=${f.partnerCode}`;
    await visit(page, landing);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id='));
    const first = await callTracker(page, 'getClickId');
    const requests = recordApiRequests(page);
    await visit(page, landing);
    await page.waitForLoadState('networkidle');
    expect(requests).toEqual([`POST ${base}/api/v1/track/click`]);
    expect(await callTracker(page, 'getClickId')).toBe(first);
    expect((await rows(h).clicks(f.programId)).map((c) => c.id)).toEqual([first]);
    expect(await signupOnPage(page, 'user-local', 'local@example.com')).toMatchObject({
      success: true,
      click_id: first,
    });
  });

  test('consent mode: nothing stored or sent before consent(true); consent(false) clears the cookies', async () => {
    const f = await program();
    const requests = recordApiRequests(page);
    const landing = `${base}/demo?program=${f.programId}&aff=${f.partnerCode}&consent=required`;
    await visit(page, landing);
    await page.waitForLoadState('networkidle');
    expect(await context.cookies()).toEqual([]);
    expect(await callTracker(page, 'signup', 'user-c', 'c@example.com')).toBeNull();
    expect(await callTracker(page, 'trackTest', { note: 'before consent' })).toBeNull();
    expect(requests).toEqual([]);
    expect(await rows(h).clicks(f.programId)).toEqual([]);

    // Consent: the held-back click of the landing URL is reported now.
    await page.click('#consent-yes');
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id='));
    const clicks = await rows(h).clicks(f.programId);
    expect(clicks).toHaveLength(1);
    expect((await context.cookies()).map((c) => c.name).sort()).toEqual([
      'tracker_aff_url',
      'tracker_click_id',
      'tracker_visitor_id',
    ]);
    expect(await signupOnPage(page, 'user-c', 'c@example.com')).toMatchObject({
      success: true,
      click_id: clicks[0]!.id,
    });
    expect(await callTracker(page, 'trackTest', { note: 'after consent' })).toMatchObject({
      success: true,
      data: { test_mode: true, programId: f.programId },
    });

    // Withdrawal: cookies gone, nothing sent any more, and the server saw no further click.
    await page.click('#consent-no');
    await page.waitForFunction(() => !document.cookie.includes('tracker_'));
    expect(await context.cookies()).toEqual([]);
    expect(await callTracker(page, 'getData')).toEqual({
      clickId: null,
      programId: f.programId,
      hasAttribution: false,
      affiliateUrl: null,
      lastError: null,
    });
    const sent = requests.length;
    expect(await callTracker(page, 'signup', 'user-c', 'c@example.com')).toBeNull();
    await visit(page, landing);
    await page.waitForLoadState('networkidle');
    expect(await context.cookies()).toEqual([]);
    expect(requests).toHaveLength(sent);
    expect(await rows(h).clicks(f.programId)).toHaveLength(1);
    expect(await rows(h).customers(f.programId)).toHaveLength(1);
  });

  test('last-partner attribution: a second partner link overwrites the click and wins the sale', async () => {
    const f = await program();
    const { partner: second } = await h.admin('POST', `/programs/${f.programId}/partners`, {
      code: `p${randomBytes(4).toString('hex')}`,
      name: 'Partner Two',
    });
    await visit(page, `${base}/demo?program=${f.programId}&aff=${f.partnerCode}`);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id='));
    const clickId = await callTracker(page, 'getClickId');
    await signupOnPage(page, 'user-lp', 'lp@example.com');

    await visit(page, `${base}/demo?program=${f.programId}&aff=${second.code}`);
    await page.waitForFunction(
      (code) =>
        (window as unknown as { tracker: { getData(): { affiliateUrl: string | null } } }).tracker
          .getData()
          .affiliateUrl?.includes(`aff=${code}`),
      second.code,
    );
    // Same click id (the old one was sent along and overwritten), now the second partner's.
    expect(await callTracker(page, 'getClickId')).toBe(clickId);
    const clicks = await rows(h).clicks(f.programId);
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatchObject({ id: clickId, partner: second.id });

    const client = createTrackerClient({ apiKey: f.liveKey, apiUrl: base });
    const sale = await client.trackSale({ customerExternalId: 'user-lp', amount: 10_000, invoiceId: 'inv-lp' });
    expect(sale.ok).toBe(true);
    const commission = await rows(h).commission((sale.data as { commission_id: number }).commission_id);
    expect(commission).toMatchObject({ partner: second.id, amountCents: 1000 });
  });
});
