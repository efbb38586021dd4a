import type { Browser, BrowserContext, Cookie, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { browserTestsEnabled, launchChromium, openPage, TEST_HOST_RULES } from './browser-harness.ts';
import { findClosedPort } from './test-http-server.ts';
import { apiCalls, PROGRAM_ID, startTrackerSite, trackerPage, type TrackerSite } from './tracker-site.ts';

const DAY_SECONDS = 86_400;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type TrackerWindow = Window & { tracker: { [method: string]: (...args: unknown[]) => unknown } };

/** Calls `window.tracker[method](...args)` in the page; a rejection comes back as `{ rejected: name }`. */
function call(page: Page, method: string, ...args: unknown[]): Promise<unknown> {
  return page.evaluate(
    async ([m, a]) => {
      try {
        return await (window as unknown as TrackerWindow).tracker[m as string]!(...(a as unknown[]));
      } catch (err) {
        return { rejected: (err as Error).name, message: (err as Error).message };
      }
    },
    [method, args] as const,
  );
}

async function visit(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => 'tracker' in window);
}

function cookie(cookies: Cookie[], name: string): Cookie | undefined {
  return cookies.find((c) => c.name === name);
}

function expectExpiryInDays(c: Cookie | undefined, days: number): void {
  expect(c).toBeDefined();
  const expected = Date.now() / 1000 + days * DAY_SECONDS;
  expect(Math.abs((c as Cookie).expires - expected)).toBeLessThan(120);
}

describe.runIf(browserTestsEnabled())('browser tracker in Chromium', { timeout: 30_000 }, () => {
  let browser: Browser;
  let app: TrackerSite;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: Error[];

  beforeAll(async () => {
    [browser, app] = await Promise.all([launchChromium([TEST_HOST_RULES]), startTrackerSite()]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });
  beforeEach(async () => {
    app.reset();
    ({ context, page, pageErrors } = await openPage(browser));
  });
  afterEach(async () => {
    await context.close();
    expect(pageErrors).toEqual([]);
  });

  test('an aff link records one click and stores the click id for cookie_window_days', async () => {
    app.setPage(
      '/landing',
      trackerPage(
        { 'program-id': String(PROGRAM_ID) },
        `<script>addEventListener('tracker:ready', (e) => { window.readyDetail = typeof e.detail.getClickId; });</script>`,
      ),
    );
    const url = `${app.site.url}/landing?aff=partner1&utm=x`;
    await visit(page, url);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id=clk_1'));

    const cookies = await context.cookies();
    const click = cookie(cookies, 'tracker_click_id');
    expect(click).toMatchObject({
      value: 'clk_1',
      domain: '127.0.0.1',
      path: '/',
      sameSite: 'Lax',
      secure: false,
      httpOnly: false,
    });
    expectExpiryInDays(click, 30);
    const visitor = cookie(cookies, 'tracker_visitor_id');
    expect(visitor?.value).toMatch(UUID);
    expectExpiryInDays(visitor, 365);

    const calls = apiCalls(app.site);
    expect(calls.map((c) => c.path)).toEqual(['/api/v1/track/click']);
    expect(calls[0]!.headers.authorization).toBeUndefined();
    expect(calls[0]!.headers['content-type']).toBe('application/json');
    expect(calls[0]!.json).toEqual({
      affiliate_url: url,
      page_url: url,
      referrer_url: null,
      existing_click_id: null,
      visitor_id: visitor?.value,
    });
    expect(await page.evaluate(() => (window as unknown as { readyDetail: string }).readyDetail)).toBe('function');
    expect(await call(page, 'getData')).toEqual({
      clickId: 'clk_1',
      programId: PROGRAM_ID,
      hasAttribution: true,
      affiliateUrl: url,
      lastError: null,
    });
    expect(await call(page, 'getVisitorId')).toBe(visitor?.value);

    // Another page of the shop, no aff: no new click, attribution read back from the cookies.
    app.setPage('/pricing', trackerPage({ 'program-id': String(PROGRAM_ID) }));
    await visit(page, `${app.site.url}/pricing`);
    expect(await call(page, 'getData')).toEqual({
      clickId: 'clk_1',
      programId: PROGRAM_ID,
      hasAttribution: true,
      affiliateUrl: url,
      lastError: null,
    });
    expect(apiCalls(app.site)).toHaveLength(1);
  });

  test('without a cookie window in the response the click cookie lasts 60 days', async () => {
    app.state.clickWindowDays = 0;
    app.setPage('/landing', trackerPage({ 'program-id': String(PROGRAM_ID) }));
    await visit(page, `${app.site.url}/landing?aff=p`);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id='));
    expectExpiryInDays(cookie(await context.cookies(), 'tracker_click_id'), 60);
  });

  test('a visit without aff sends nothing and has no attribution', async () => {
    app.setPage('/plain', trackerPage({ 'program-id': String(PROGRAM_ID) }));
    await visit(page, `${app.site.url}/plain`);
    expect(await call(page, 'getData')).toEqual({
      clickId: null,
      programId: PROGRAM_ID,
      hasAttribution: false,
      affiliateUrl: null,
      lastError: null,
    });
    expect(await call(page, 'signup', 'user_42', 'a@example.com')).toBeNull();
    expect(apiCalls(app.site)).toEqual([]);
    expect(cookie(await context.cookies(), 'tracker_visitor_id')?.value).toMatch(UUID);
  });

  test('a second aff link overwrites the click and reports the existing one', async () => {
    app.setPage('/landing', trackerPage({ 'program-id': String(PROGRAM_ID) }));
    await visit(page, `${app.site.url}/landing?aff=first`);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id=clk_1'));
    const second = `${app.site.url}/landing?aff=second`;
    await visit(page, second);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id=clk_2'));

    const clicks = app.site.calls('/api/v1/track/click');
    expect(clicks.map((c) => (c.json as { existing_click_id: unknown }).existing_click_id)).toEqual([null, 'clk_1']);
    expect(clicks[1]!.json).toMatchObject({ affiliate_url: second, referrer_url: null });
    expect(await call(page, 'getData')).toMatchObject({ clickId: 'clk_2', affiliateUrl: second });
  });

  test('consent mode stores and sends nothing before consent(true); consent(false) clears the cookies', async () => {
    app.setPage('/landing', trackerPage({ 'program-id': String(PROGRAM_ID), consent: 'required' }));
    await visit(page, `${app.site.url}/landing?aff=partner1`);
    await page.waitForLoadState('networkidle');
    expect(await call(page, 'signup', 'user_42', 'a@example.com')).toBeNull();
    expect(await call(page, 'trackTest', { a: 1 })).toBeNull();
    expect(await call(page, 'getVisitorId')).toBeNull();
    expect(apiCalls(app.site)).toEqual([]);
    expect(await context.cookies()).toEqual([]);

    await call(page, 'consent', true);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id=clk_1'));
    expect(app.site.calls('/api/v1/track/click')).toHaveLength(1);
    expect((await context.cookies()).map((c) => c.name).sort()).toEqual([
      'tracker_aff_url',
      'tracker_click_id',
      'tracker_visitor_id',
    ]);

    await call(page, 'consent', false);
    expect(await context.cookies()).toEqual([]);
    expect(await call(page, 'getData')).toEqual({
      clickId: null,
      programId: PROGRAM_ID,
      hasAttribution: false,
      affiliateUrl: null,
      lastError: null,
    });
    expect(await call(page, 'getVisitorId')).toBeNull();
    expect(await call(page, 'signup', 'user_42', 'a@example.com')).toBeNull();
    expect(await call(page, 'trackTest')).toBeNull();
    expect(apiCalls(app.site)).toHaveLength(1);
  });

  test('signup rejects without customerKey and posts the lead without Authorization', async () => {
    app.setPage('/landing', trackerPage({ 'program-id': String(PROGRAM_ID) }));
    await visit(page, `${app.site.url}/landing?aff=partner1`);
    expect(await call(page, 'signup', '', 'a@example.com')).toMatchObject({ rejected: 'TypeError' });
    expect(await call(page, 'signup')).toMatchObject({ rejected: 'TypeError' });
    expect(app.site.calls('/api/v1/track/browser-lead')).toEqual([]);

    // Called right after landing: waits for the click call, so it binds the new click.
    expect(await call(page, 'signup', 'user_42', 'a@example.com')).toEqual({ success: true, customer_id: 1 });
    const lead = app.site.calls('/api/v1/track/browser-lead')[0]!;
    expect(lead.headers.authorization).toBeUndefined();
    expect(lead.headers.origin).toBe(app.site.url);
    expect(lead.json).toEqual({
      program_id: PROGRAM_ID,
      customer_key: 'user_42',
      email: 'a@example.com',
      click_id: 'clk_1',
      visitor_id: cookie(await context.cookies(), 'tracker_visitor_id')?.value,
    });

    app.state.leadStatus = 500;
    expect(await call(page, 'signup', 'user_42', 'a@example.com')).toBeNull();
  });

  test('trackTest posts { program_id, data }', async () => {
    app.setPage('/plain', trackerPage({ 'program-id': String(PROGRAM_ID) }));
    await visit(page, `${app.site.url}/plain`);
    const res = await call(page, 'trackTest', { hello: 'world' });
    expect(res).toEqual({ success: true, received: { program_id: PROGRAM_ID, data: { hello: 'world' } } });
    expect(app.site.calls('/api/v1/track/test')[0]!.headers.authorization).toBeUndefined();
  });

  test.each([
    [
      'the data-tracker-api-base attribute',
      (base: string) => trackerPage({ 'program-id': String(PROGRAM_ID), 'api-base': base + '/' }),
    ],
    [
      'a TRACKER_API_BASE global set before load',
      (base: string) =>
        trackerPage({ 'program-id': String(PROGRAM_ID) }, `<script>window.TRACKER_API_BASE = '${base}';</script>`),
    ],
  ])('%s sends every call to another API base (cross-origin, CORS)', async (_label, html) => {
    app.setPage('/landing', html(app.api.url));
    await visit(page, `${app.site.url}/landing?aff=partner1`);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id=clk_1'));
    expect(await call(page, 'signup', 'user_42', 'a@example.com')).toEqual({ success: true, customer_id: 1 });
    expect(apiCalls(app.api).map((c) => c.path)).toEqual(['/api/v1/track/click', '/api/v1/track/browser-lead']);
    expect(app.api.calls('/api/v1/track/browser-lead')[0]!.headers.origin).toBe(app.site.url);
    expect(apiCalls(app.site)).toEqual([]);
  });

  test('an unreachable API never throws into the page', async () => {
    const port = await findClosedPort();
    app.setPage('/landing', trackerPage({ 'program-id': String(PROGRAM_ID), 'api-base': `http://127.0.0.1:${port}` }));
    await visit(page, `${app.site.url}/landing?aff=partner1`);
    await page.waitForLoadState('networkidle');
    expect(await call(page, 'getClickId')).toBeNull();
    expect(await call(page, 'signup', 'user_42', 'a@example.com')).toBeNull();
    expect(await call(page, 'trackTest')).toBeNull();
  });

  test('the click cookie goes on the root domain, and host-only under a public suffix', async () => {
    app.setPage('/landing', trackerPage({ 'program-id': String(PROGRAM_ID) }));
    await visit(page, `http://www.shop.test:${app.site.port}/landing?aff=p`);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id=clk_1'));
    expect(cookie(await context.cookies(), 'tracker_click_id')?.domain).toBe('.shop.test');
    // Plain http here, so no crypto.randomUUID: the fallback still makes a v4 UUID.
    expect(cookie(await context.cookies(), 'tracker_visitor_id')?.value).toMatch(UUID);

    await visit(page, `http://www.shop.co.uk:${app.site.port}/landing?aff=p`);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id=clk_2'));
    const ukCookies = (await context.cookies()).filter((c) => c.domain.endsWith('co.uk'));
    expect(cookie(ukCookies, 'tracker_click_id')?.domain).toBe('www.shop.co.uk');
  });

  test('debug logs go to the console; an invalid program id does not start the tracker', async () => {
    const logs: string[] = [];
    page.on('console', (msg) => logs.push(`${msg.type()} ${msg.text()}`));
    app.setPage('/debug', trackerPage({ 'program-id': String(PROGRAM_ID), debug: '' }));
    await visit(page, `${app.site.url}/debug`);
    expect(logs.some((l) => l.startsWith('debug [tracker] ready'))).toBe(true);

    app.setPage('/broken', trackerPage({ 'program-id': 'abc' }));
    await page.goto(`${app.site.url}/broken?aff=p`);
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate(() => 'tracker' in window)).toBe(false);
    expect(logs.some((l) => l.startsWith('error [tracker] data-tracker-program-id'))).toBe(true);
    expect(apiCalls(app.site)).toEqual([]);
  });
});
