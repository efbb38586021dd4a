/**
 * Ways of embedding the tracker against the real service: the loader on a merchant's own site,
 * an API base on another origin (CORS), and the program domain rule for keyless browser calls.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { buildTracker } from '../../tracker/build.ts';
import type { LoadTrackerOptions } from '../../tracker/src/loader.ts';
import { createHarness, createProgramFixture, type Harness } from '../helpers/harness.ts';
import { browserTestsEnabled, launchChromium, openPage, TEST_HOST_RULES } from '../tracker/browser-harness.ts';
import { startTestServer, type TestServer } from '../tracker/test-http-server.ts';
import { callTracker, cookie, ensureFreshTrackerBundle, rows, signupOnPage, visit } from './e2e-helpers.ts';

type LoaderWindow = Window & { loadTracker: (options: LoadTrackerOptions) => Promise<unknown>; tracker?: unknown };

/** A merchant app page that bundles the loader (served by the merchant's own site, not by us). */
const MERCHANT_APP = `<!doctype html><html><head><meta charset="utf-8">
<script type="module">import { loadTracker } from '/loader.js'; window.loadTracker = loadTracker;</script>
</head><body><h1>merchant app</h1></body></html>`;

describe.runIf(browserTestsEnabled())('embedding the tracker against the real service', { timeout: 60_000 }, () => {
  let h: Harness;
  let base: string;
  let port: string;
  let browser: Browser;
  let merchant: TestServer;
  let outdir: string;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: Error[];
  let consoleErrors: string[];

  beforeAll(async () => {
    await ensureFreshTrackerBundle();
    outdir = mkdtempSync(join(tmpdir(), 'tracker-e2e-'));
    [h, browser, merchant] = (await Promise.all([
      createHarness(),
      launchChromium([TEST_HOST_RULES]),
      startTestServer(),
      buildTracker(outdir),
    ])) as [Harness, Browser, TestServer, unknown];
    base = await h.listen();
    port = new URL(base).port;
    // The demo page may name another origin of this server as its API base (DEMO_API_ORIGINS).
    h.ctx.config.DEMO_API_ORIGINS.push(`http://localhost:${port}`);
    merchant.on('GET', '/app', { body: MERCHANT_APP });
    merchant.on('GET', '/favicon.ico', { status: 204 });
    merchant.on('GET', '/loader.js', {
      body: readFileSync(join(outdir, 'loader.js'), 'utf8'),
      contentType: 'text/javascript',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await merchant?.close();
    await h?.close();
    if (outdir) rmSync(outdir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    ({ context, page, pageErrors } = await openPage(browser));
    consoleErrors = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
  });
  afterEach(async () => {
    await context.close();
    expect(pageErrors).toEqual([]);
  });

  /** `access-control-allow-origin` of every tracking API answer the page received. */
  function corsAnswers(): Array<{ url: string; status: number; allowOrigin: string | null }> {
    const seen: Array<{ url: string; status: number; allowOrigin: string | null }> = [];
    page.on('response', (res: Response) => {
      if (res.url().includes('/api/v1/track/'))
        seen.push({
          url: res.url(),
          status: res.status(),
          allowOrigin: res.headers()['access-control-allow-origin'] ?? null,
        });
    });
    return seen;
  }

  test('the loader on a merchant site, with scriptUrl pointing at the real server, tracks click and signup cross-origin', async () => {
    const f = await createProgramFixture(h, { domain: '127.0.0.1' });
    const answers = corsAnswers();
    const landing = `${merchant.url}/app?aff=${f.partnerCode}`;
    await page.goto(landing);
    await page.waitForFunction(() => 'loadTracker' in window);
    const started = await page.evaluate(
      async ([programId, scriptUrl]) => {
        const w = window as unknown as LoaderWindow;
        const t = await w.loadTracker({ programId, scriptUrl });
        return t === w.tracker && document.querySelectorAll('script[data-tracker-program-id]').length === 1;
      },
      [f.programId, `${base}/tracker.js`] as const,
    );
    expect(started).toBe(true);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id='));

    const clickId = await callTracker(page, 'getClickId');
    expect(await rows(h).clicks(f.programId)).toMatchObject([
      { id: clickId, partner: f.partnerId, affiliateUrl: landing },
    ]);
    expect(await callTracker(page, 'signup', 'user-loader', 'l@example.com')).toMatchObject({
      success: true,
      click_id: clickId,
    });
    expect(await rows(h).customers(f.programId)).toMatchObject([{ customerKey: 'user-loader', click: clickId }]);

    // The API base defaults to the script's origin: our server, answered with CORS for the merchant's origin.
    expect(answers).toEqual([
      { url: `${base}/api/v1/track/click`, status: 200, allowOrigin: merchant.url },
      { url: `${base}/api/v1/track/browser-lead`, status: 200, allowOrigin: merchant.url },
    ]);
    expect(merchant.requests.filter((r) => r.path.startsWith('/api/'))).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  test('data-tracker-api-base on another origin: calls go there and pass the CORS preflight', async () => {
    const f = await createProgramFixture(h, { domain: '127.0.0.1' });
    const apiBase = `http://localhost:${port}`; // same server, another origin than the page's 127.0.0.1
    const answers = corsAnswers();
    await visit(
      page,
      `${base}/demo?program=${f.programId}&aff=${f.partnerCode}&api_base=${encodeURIComponent(apiBase)}`,
    );
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id='));
    const clickId = await callTracker(page, 'getClickId');
    expect(await signupOnPage(page, 'user-apibase', 'a@example.com')).toMatchObject({
      success: true,
      click_id: clickId,
    });
    expect(await callTracker(page, 'trackTest', { via: 'api base' })).toMatchObject({
      success: true,
      data: { test_mode: true },
    });

    expect(answers).toEqual(
      ['click', 'browser-lead', 'test'].map((kind) => ({
        url: `${apiBase}/api/v1/track/${kind}`,
        status: 200,
        allowOrigin: base,
      })),
    );
    expect(await rows(h).clicks(f.programId)).toMatchObject([{ id: clickId, partner: f.partnerId }]);
    expect(await rows(h).customers(f.programId)).toMatchObject([{ customerKey: 'user-apibase', click: clickId }]);
    expect(consoleErrors).toEqual([]);
  });

  test('program domain: a partner link on the merchant domain works (cookie on the root domain); on a foreign host nothing is recorded', async () => {
    const f = await createProgramFixture(h, { domain: 'shop.test' });
    await visit(page, `http://www.shop.test:${port}/demo?program=${f.programId}&aff=${f.partnerCode}`);
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id='));
    const clickId = await callTracker(page, 'getClickId');
    expect(cookie(await context.cookies(), 'tracker_click_id')).toMatchObject({ value: clickId, domain: '.shop.test' });
    expect(await signupOnPage(page, 'user-domain', 'd@example.com')).toMatchObject({
      success: true,
      click_id: clickId,
    });

    const { context: foreignContext, page: foreign } = await openPage(browser);
    const answers: number[] = [];
    foreign.on('response', (res) => {
      if (res.url().includes('/api/v1/track/')) answers.push(res.status());
    });
    await visit(foreign, `http://evil.test:${port}/demo?program=${f.programId}&aff=${f.partnerCode}`);
    await foreign.waitForLoadState('networkidle');
    expect(answers).toEqual([400]); // the click's affiliate URL is not on the program domain
    expect(await callTracker(foreign, 'getClickId')).toBeNull();
    // Even with a real click id of the program, a keyless lead from a foreign origin is refused.
    const lead = await foreign.evaluate(
      async ([url, programId, click]) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ program_id: programId, customer_key: 'thief', click_id: click }),
        });
        return { status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code };
      },
      ['/api/v1/track/browser-lead', f.programId, clickId] as const,
    );
    await foreignContext.close();
    expect(lead).toEqual({ status: 403, code: 'forbidden' });
    expect(await rows(h).clicks(f.programId)).toHaveLength(1);
    expect((await rows(h).customers(f.programId)).map((c) => c.customerKey)).toEqual(['user-domain']);
  });
});
