import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { LoadTrackerOptions } from '../../tracker/src/loader.ts';
import { browserTestsEnabled, launchChromium, openPage } from './browser-harness.ts';
import { apiCalls, PROGRAM_ID, startTrackerSite, type TrackerSite } from './tracker-site.ts';

type LoaderWindow = Window & {
  loadTracker: (options: LoadTrackerOptions) => Promise<unknown>;
  tracker?: { getData(): unknown; consent(granted: boolean): void };
};

const LOADER_PAGE = `<!doctype html><html><head><meta charset="utf-8">
<script type="module">import { loadTracker } from '/loader.js'; window.loadTracker = loadTracker;</script>
</head><body></body></html>`;

describe.runIf(browserTestsEnabled())('loadTracker in Chromium', { timeout: 30_000 }, () => {
  let browser: Browser;
  let app: TrackerSite;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: Error[];

  beforeAll(async () => {
    [browser, app] = await Promise.all([launchChromium(), startTrackerSite()]);
    app.setPage('/app', LOADER_PAGE);
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

  async function open(path: string): Promise<void> {
    await page.goto(app.site.url + path);
    await page.waitForFunction(() => 'loadTracker' in window);
  }

  test('scriptUrl injects the script once and resolves to window.tracker', async () => {
    await open('/app?aff=partner1');
    const result = await page.evaluate(async (programId) => {
      const w = window as unknown as LoaderWindow;
      const [a, b] = await Promise.all([
        w.loadTracker({ programId, scriptUrl: '/tracker.js' }),
        w.loadTracker({ programId, scriptUrl: '/tracker.js' }),
      ]);
      const c = await w.loadTracker({ programId, scriptUrl: '/tracker.js' });
      const tags = Array.from(document.querySelectorAll<HTMLScriptElement>('script[data-tracker-program-id]'));
      return {
        same: a === w.tracker && b === a && c === a,
        tags: tags.map((t) => ({
          src: t.src,
          programId: t.dataset.trackerProgramId,
          debug: t.dataset.trackerDebug ?? null,
        })),
      };
    }, PROGRAM_ID);
    expect(result).toEqual({
      same: true,
      tags: [{ src: `${app.site.url}/tracker.js`, programId: String(PROGRAM_ID), debug: null }],
    });
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id=clk_1'));
    expect(app.site.calls('/api/v1/track/click')).toHaveLength(1);
  });

  test('apiBase, consentRequired and debug become the data attributes', async () => {
    await open('/app?aff=partner1');
    const attrs = await page.evaluate(
      async ([programId, apiBase]) => {
        const w = window as unknown as LoaderWindow;
        await w.loadTracker({ programId, scriptUrl: '/tracker.js', apiBase, consentRequired: true, debug: true });
        const tag = document.querySelector('script[data-tracker-program-id]') as HTMLScriptElement;
        return { ...tag.dataset };
      },
      [PROGRAM_ID, app.api.url] as const,
    );
    expect(attrs).toEqual({
      trackerProgramId: String(PROGRAM_ID),
      trackerApiBase: app.api.url,
      trackerConsent: 'required',
      trackerDebug: 'true',
    });

    await page.waitForLoadState('networkidle');
    expect(apiCalls(app.api)).toEqual([]);
    await page.evaluate(() => (window as unknown as LoaderWindow).tracker?.consent(true));
    await page.waitForFunction(() => document.cookie.includes('tracker_click_id=clk_1'));
    expect(apiCalls(app.api).map((c) => c.path)).toEqual(['/api/v1/track/click']);
  });

  test('a script that fails to load rejects with an Error', async () => {
    await open('/app');
    const outcome = await page.evaluate(async (programId) => {
      try {
        await (window as unknown as LoaderWindow).loadTracker({ programId, scriptUrl: '/missing.js' });
        return 'resolved';
      } catch (err) {
        return `${(err as Error).name}: ${(err as Error).message}`;
      }
    }, PROGRAM_ID);
    expect(outcome).toBe(`Error: tracker script failed to load: ${app.site.url}/missing.js`);
  });

  test('an existing tag that never started the tracker rejects after timeoutMs', async () => {
    app.setPage(
      '/broken',
      LOADER_PAGE.replace('</head>', '<script src="/tracker.js" data-tracker-program-id="abc"></script></head>'),
    );
    await open('/broken');
    const outcome = await page.evaluate(async (programId) => {
      try {
        await (window as unknown as LoaderWindow).loadTracker({ programId, scriptUrl: '/tracker.js', timeoutMs: 300 });
        return 'resolved';
      } catch (err) {
        return (err as Error).message;
      }
    }, PROGRAM_ID);
    expect(outcome).toMatch(/^tracker did not start within 300 ms/);
    expect(await page.evaluate(() => document.querySelectorAll('script[data-tracker-program-id]').length)).toBe(1);
  });
});
