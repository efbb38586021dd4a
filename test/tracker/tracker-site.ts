/**
 * A merchant site for the browser tests: serves the freshly built `tracker.js` / `loader.js`
 * and test pages, and answers the tracker's API routes the way the spec describes them. A second
 * server on another port (so another origin) plays a separate API base, with CORS.
 * The lead will point these tests at the real server once it exists.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTracker } from '../../tracker/build.ts';
import { startTestServer, type RecordedRequest, type TestServer } from './test-http-server.ts';

export const PROGRAM_ID = 7;

export type TrackerSite = {
  /** Serves pages and scripts; also the default (same-origin) API base. */
  site: TestServer;
  /** A cross-origin API base. */
  api: TestServer;
  /** `cookie_window_days` the click route answers with. */
  state: { clickWindowDays: number; leadStatus: number };
  setPage(path: string, html: string): void;
  reset(): void;
  close(): Promise<void>;
};

/** A page that loads `/tracker.js` with the given `data-tracker-*` attributes after `head`. */
export function trackerPage(attrs: Record<string, string>, head = ''): string {
  const data = Object.entries(attrs)
    .map(([name, value]) => ` data-tracker-${name}="${value}"`)
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8">${head}<script src="/tracker.js"${data}></script></head><body><h1>shop</h1></body></html>`;
}

export async function startTrackerSite(): Promise<TrackerSite> {
  const outdir = mkdtempSync(join(tmpdir(), 'tracker-dist-'));
  await buildTracker(outdir);
  const site = await startTestServer();
  const api = await startTestServer({ cors: true });
  const state = { clickWindowDays: 30, leadStatus: 200 };
  let clicks = 0;

  for (const name of ['tracker.js', 'loader.js']) {
    site.on('GET', `/${name}`, { body: readFileSync(join(outdir, name), 'utf8'), contentType: 'text/javascript' });
  }
  for (const server of [site, api]) {
    server.on('POST', '/api/v1/track/click', (req: RecordedRequest) => {
      const body = req.json as { affiliate_url?: string };
      const aff = new URL(body.affiliate_url ?? 'http://x/').searchParams.get('aff');
      clicks += 1;
      return {
        body: {
          success: true,
          click_id: `clk_${clicks}`,
          partner_code: aff,
          cookie_window_days: state.clickWindowDays,
        },
      };
    });
    server.on('POST', '/api/v1/track/browser-lead', () =>
      state.leadStatus === 200
        ? { body: { success: true, customer_id: 1 } }
        : {
            status: state.leadStatus,
            body: {
              data: null,
              error: { status: state.leadStatus, name: 'Error', message: 'nope', details: {}, code: 'internal_error' },
            },
          },
    );
    server.on('POST', '/api/v1/track/test', (req) => ({ body: { success: true, received: req.json } }));
  }

  return {
    site,
    api,
    state,
    setPage: (path, html) => site.on('GET', path, { body: html }),
    reset() {
      site.requests.length = 0;
      api.requests.length = 0;
      clicks = 0;
      state.clickWindowDays = 30;
      state.leadStatus = 200;
    },
    async close() {
      await Promise.all([site.close(), api.close()]);
      rmSync(outdir, { recursive: true, force: true });
    },
  };
}

/** Only the tracker's API calls (pages and scripts filtered out). */
export function apiCalls(server: TestServer): RecordedRequest[] {
  return server.requests.filter((r) => r.path.startsWith('/api/') && r.method !== 'OPTIONS');
}
