/**
 * `data-tracker-debug` against the real service: a refused click or lead is logged with the
 * server's error code and the fix (the program's domain), and `getData().lastError` keeps it.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createHarness, createProgramFixture, type Harness } from '../helpers/harness.ts';
import { browserTestsEnabled, launchChromium, openPage, TEST_HOST_RULES } from '../tracker/browser-harness.ts';
import { startTestServer, type TestServer } from '../tracker/test-http-server.ts';
import { callTracker, ensureFreshTrackerBundle, rows, visit } from './e2e-helpers.ts';

type LastError = { call: string; status: number; code: string | null; message: string; fix: string } | null;

describe.runIf(browserTestsEnabled())('tracker debug mode', { timeout: 60_000 }, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let site: TestServer;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: Error[];
  let warnings: string[];

  beforeAll(async () => {
    await ensureFreshTrackerBundle();
    [h, browser, site] = await Promise.all([createHarness(), launchChromium([TEST_HOST_RULES]), startTestServer()]);
    base = await h.listen();
    site.on('GET', '/favicon.ico', { status: 204 });
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await h?.close();
  });
  beforeEach(async () => {
    ({ context, page, pageErrors } = await openPage(browser));
    warnings = [];
    page.on('console', (m) => {
      if (m.type() === 'warning') warnings.push(m.text());
    });
  });
  afterEach(async () => {
    await context.close();
    expect(pageErrors).toEqual([]);
  });

  const landingPage = (programId: number, debug: boolean) => `<!doctype html><html><head><meta charset="utf-8">
<script src="${base}/tracker.js" data-tracker-program-id="${programId}"${debug ? ' data-tracker-debug' : ''}></script></head><body>shop</body></html>`;
  const lastError = () =>
    page.evaluate(
      () => (window as unknown as { tracker: { getData(): { lastError: LastError } } }).tracker.getData().lastError,
    );
  const waitForError = () =>
    page.waitForFunction(
      () =>
        (window as unknown as { tracker: { getData(): { lastError: unknown } } }).tracker.getData().lastError !== null,
    );

  test('a click refused for the program domain: the code and the fix naming the domain, logged and in getData()', async () => {
    const f = await createProgramFixture(h, { domain: 'shop.test' });
    site.on('GET', `/refused-${f.programId}`, { body: landingPage(f.programId, true), contentType: 'text/html' });
    await visit(page, `${site.url}/refused-${f.programId}?aff=${f.partnerCode}`);
    await waitForError();
    const err = await lastError();
    expect(err).toMatchObject({ call: 'click', status: 400, code: 'invalid_request' });
    expect(err!.fix).toContain('"shop.test"');
    expect(err!.fix).toContain('"127.0.0.1"');
    expect(err!.fix).toMatch(/local\.shop\.test/);
    const logged = warnings.find((w) => w.startsWith('[tracker] click refused'));
    expect(logged).toContain('invalid_request');
    expect(logged).toContain('shop.test');
    expect(await rows(h).clicks(f.programId)).toEqual([]);
    // The signup that follows says why nothing is sent, instead of a silent null.
    expect(await callTracker(page, 'signup', 'user_debug')).toBeNull();
    expect(warnings.some((w) => w.startsWith('[tracker] signup not sent: no click id'))).toBe(true);
  });

  test('the fix works: the same link on a host under the program domain records the click and clears nothing wrongly', async () => {
    const f = await createProgramFixture(h, { domain: 'shop.test' });
    site.on('GET', `/ok-${f.programId}`, { body: landingPage(f.programId, true), contentType: 'text/html' });
    await visit(page, `http://local.shop.test:${site.port}/ok-${f.programId}?aff=${f.partnerCode}`);
    await page.waitForFunction(
      () => (window as unknown as { tracker: { getClickId(): string | null } }).tracker.getClickId() !== null,
    );
    expect(await lastError()).toBeNull();
    expect(await rows(h).clicks(f.programId)).toHaveLength(1);
    expect(warnings.filter((w) => w.startsWith('[tracker]'))).toEqual([]);
  });

  test('a lead refused by origin (program without a domain, page not on localhost): code forbidden and the fix', async () => {
    const f = await createProgramFixture(h);
    site.on('GET', `/lead-${f.programId}`, { body: landingPage(f.programId, true), contentType: 'text/html' });
    await visit(page, `http://merchant.test:${site.port}/lead-${f.programId}?aff=${f.partnerCode}`);
    await page.waitForFunction(
      () => (window as unknown as { tracker: { getClickId(): string | null } }).tracker.getClickId() !== null,
    );
    expect(await callTracker(page, 'signup', 'user_lead')).toBeNull();
    const err = await lastError();
    expect(err).toMatchObject({ call: 'lead', status: 403, code: 'forbidden' });
    expect(err!.fix).toContain('no domain');
    expect(err!.fix).toContain('"merchant.test"');
    expect(warnings.find((w) => w.startsWith('[tracker] lead refused'))).toContain('forbidden');
    expect(await rows(h).customers(f.programId)).toEqual([]);
  });

  test('without data-tracker-debug nothing is logged, but getData() still has the last error', async () => {
    const f = await createProgramFixture(h, { domain: 'shop.test' });
    site.on('GET', `/quiet-${f.programId}`, { body: landingPage(f.programId, false), contentType: 'text/html' });
    await visit(page, `${site.url}/quiet-${f.programId}?aff=${f.partnerCode}`);
    await waitForError();
    expect(await lastError()).toMatchObject({ call: 'click', code: 'invalid_request' });
    expect(warnings.filter((w) => w.startsWith('[tracker]'))).toEqual([]);
  });
});
