/** GET /docs in a real Chromium: Scalar renders the served document, every operation is listed, nothing is loaded from elsewhere. */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHttpApp } from '../../src/http/app.ts';
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
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    const foreign: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    // The renderer is a 4 MB script: wait for the DOM, then for the rendered operations.
    const res = await page.goto(`${base}/docs`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForFunction(
      (n) =>
        document.body.innerText.includes('Record a sale and its commission') &&
        document.querySelectorAll('[id*="operation"], [id*="tag/"]').length >= 1 &&
        n > 0,
      OPERATIONS.length,
      { timeout: 60_000 },
    );
    const text = await page.evaluate(() => document.body.innerText);
    // Every route the server registers (CORS preflight aside) is listed by its operation's summary.
    const routes = createHttpApp(h.ctx)['~routes'];
    const registered = routes.filter((r) => r.method !== 'OPTIONS').map((r) => `${r.method} ${r.route}`);
    const byRoute = new Map(OPERATIONS.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op]));
    const missing = registered.filter((r) => !text.includes(byRoute.get(r)?.summary ?? `no operation for ${r}`));
    expect(registered.length).toBeGreaterThan(60);
    expect(missing).toEqual([]);
    // None of the renderer's hosted-service controls (its configuration turns them off).
    for (const control of ['Ask AI', 'Generate MCP', 'Connect MCP', 'Developer Tools', 'Deploy'])
      expect(text, control).not.toContain(control);
    expect(await page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute('href'))).toBe(
      '/favicon.svg',
    );
    expect(pageErrors.map((e) => e.message)).toEqual([]);
    // Nothing refused by the CSP, nothing missing (the icon is served: no /favicon.ico 404).
    expect(consoleErrors).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  }, 120_000);
});
