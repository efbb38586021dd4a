/** GET /docs in a real Chromium: Scalar renders the served document, every operation is listed, nothing is loaded from elsewhere. */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { OPERATIONS } from '../../src/http/openapi/operations.ts';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { browserTestsEnabled, launchChromium, openPage } from '../tracker/browser-harness.ts';

describe.runIf(browserTestsEnabled())('API reference page (/docs) in Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let base = '';
  beforeAll(async () => {
    [h, browser] = await Promise.all([createHarness(), launchChromium()]);
    base = await h.listen();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  test('renders every operation from /openapi.json, under its CSP, with no request leaving the server', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    const consoleErrors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    const foreign: string[] = [];
    page.on('request', (r) => { if (!r.url().startsWith(base) && !r.url().startsWith('data:')) foreign.push(r.url()); });
    const res = await page.goto(`${base}/docs`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForFunction((n) => document.body.innerText.includes('Record a sale and its commission') && document.querySelectorAll('[id*="operation"], [id*="tag/"]').length >= 1 && n > 0, OPERATIONS.length, { timeout: 20_000 });
    const text = await page.evaluate(() => document.body.innerText);
    const missing = OPERATIONS.filter((op) => !text.includes(op.summary)).map((op) => `${op.method.toUpperCase()} ${op.path}: ${op.summary}`);
    expect(missing).toEqual([]);
    expect(pageErrors.map((e) => e.message)).toEqual([]);
    expect(consoleErrors.filter((m) => /Content Security Policy|Refused/i.test(m))).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  });
});
