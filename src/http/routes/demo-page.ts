import { randomBytes } from 'node:crypto';
import type { H3Event } from 'h3';
import type { Config } from '../../config.ts';
import { defineOperation } from '../openapi/operation.ts';

/**
 * GET /demo: a landing page that embeds the browser tracker the way a merchant would, so newcomers
 * and the browser end-to-end tests use a real page served by the real server. It holds no data
 * and reads no database.
 *
 * Query: `program` (required, positive integer), `aff` (read by the tracker itself),
 * `consent=required` (consent mode), `api_base` (an http(s) URL for `data-tracker-api-base`, on
 * the page's own host or an origin listed in DEMO_API_ORIGINS: any other would let a link point
 * the page's signup form, and its CSP, at someone else's server).
 * Nothing from the query reaches the page unvalidated, and every attribute value is escaped.
 * Off (404) unless DEMO_PAGE is true, or unset in embedded mode.
 */
export function demoPageRoute(ctx: { config: Config }) {
  return (event: H3Event): Response => {
    if (!demoPageEnabled(ctx.config)) {
      return page(404, '<h1>Not found</h1><p>The demo page is off on this server (<code>DEMO_PAGE</code>).</p>');
    }
    const query = event.url.searchParams;
    const program = query.get('program') ?? '';
    if (!/^[1-9]\d{0,15}$/.test(program) || !Number.isSafeInteger(Number(program))) {
      return page(
        400,
        '<h1>Bad request</h1><p>The <code>program</code> query parameter must be a positive integer, e.g. <code>/demo?program=1&amp;aff=PARTNER_CODE</code>.</p>',
      );
    }
    const apiBase = parseApiBase(query.get('api_base'));
    if (apiBase === undefined) {
      return page(
        400,
        '<h1>Bad request</h1><p><code>api_base</code> must be an http(s) URL without credentials, query or fragment.</p>',
      );
    }
    if (apiBase && !apiBaseAllowed(new URL(apiBase), event.url, ctx.config.DEMO_API_ORIGINS)) {
      return page(
        400,
        "<h1>Bad request</h1><p><code>api_base</code> must be on this page's host or an origin listed in <code>DEMO_API_ORIGINS</code>.</p>",
      );
    }
    const consent = query.get('consent') === 'required';
    const nonce = randomBytes(16).toString('base64');
    const attrs = [
      `data-tracker-program-id="${program}"`,
      consent ? 'data-tracker-consent="required"' : '',
      apiBase ? `data-tracker-api-base="${escapeHtml(apiBase)}"` : '',
    ]
      .filter(Boolean)
      .join(' ');
    const consentButtons = consent
      ? '<p id="consent">Consent mode: nothing is stored or sent until you accept. <button type="button" id="consent-yes">Accept tracking</button> <button type="button" id="consent-no">Decline</button></p>'
      : '';
    const body = `<script src="/tracker.js" ${attrs} async></script>
<h1>Demo shop (program ${program})</h1>
<p>Open this page through a partner link (<code>?aff=PARTNER_CODE</code>), then sign up. Your backend then reports the sale with the server client.</p>
${consentButtons}
<form id="signup">
  <label>Your user id <input name="customer_key" id="customer-key" required autocomplete="off"></label>
  <label>Email <input name="email" id="email" type="email" autocomplete="off"></label>
  <button type="submit" id="signup-button">Sign up</button>
</form>
<h2>tracker.getData()</h2>
<pre id="state">tracker not loaded yet</pre>
<h2>Last signup answer</h2>
<pre id="result"></pre>
<script nonce="${nonce}">${PAGE_SCRIPT}</script>`;
    const connect = apiBase ? ` ${new URL(apiBase).origin}` : '';
    return page(
      200,
      body,
      {
        // Defence in depth: only our own /tracker.js and this page's one inline script run.
        'content-security-policy': `default-src 'none'; script-src 'self' 'nonce-${nonce}'; connect-src 'self'${connect}; style-src 'nonce-${nonce}'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
      },
      nonce,
    );
  };
}

/** DEMO_PAGE, else on in embedded mode only (a production service has no use for a demo shop). */
export function demoPageEnabled(config: Pick<Config, 'DEMO_PAGE' | 'DATABASE_URL'>): boolean {
  return config.DEMO_PAGE ?? !config.DATABASE_URL;
}

/** The page's own host (http or https: a proxy may end TLS in front of us), or a listed origin. */
function apiBaseAllowed(apiBase: URL, pageUrl: URL, allowed: readonly string[]): boolean {
  return apiBase.host === pageUrl.host || allowed.includes(apiBase.origin);
}

/** `null` when absent, `undefined` when invalid, else the normalised URL without a trailing slash. */
function parseApiBase(raw: string | null): string | null | undefined {
  if (raw === null || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash) return undefined;
  return url.href.replace(/\/+$/, '');
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(status: number, body: string, headers: Record<string, string> = {}, nonce = ''): Response {
  const style = nonce
    ? `<style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}pre{background:#f4f4f4;padding:.5rem}</style>`
    : '';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Tracker demo</title>${style}</head><body>${body}</body></html>`;
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
      ...headers,
    },
  });
}

/** The page's behaviour: fixed text, nothing interpolated. The tracker loads async, so wait for it. */
const PAGE_SCRIPT = `
(function () {
  var state = document.getElementById('state');
  var result = document.getElementById('result');
  function withTracker(fn) {
    if (window.tracker) fn(window.tracker);
    else addEventListener('tracker:ready', function (e) { fn(e.detail); }, { once: true });
  }
  function render() {
    if (window.tracker) state.textContent = JSON.stringify(window.tracker.getData(), null, 2);
  }
  withTracker(render);
  setInterval(render, 500);
  document.getElementById('signup').addEventListener('submit', function (e) {
    e.preventDefault();
    var key = document.getElementById('customer-key').value;
    var email = document.getElementById('email').value;
    result.textContent = 'sending...';
    withTracker(function (t) {
      t.signup(key, email).then(function (answer) {
        result.textContent = JSON.stringify(answer, null, 2);
        render();
      }, function (err) {
        result.textContent = 'error: ' + err.message;
      });
    });
  });
  ['yes', 'no'].forEach(function (choice) {
    var button = document.getElementById('consent-' + choice);
    if (button) button.addEventListener('click', function () {
      withTracker(function (t) { t.consent(choice === 'yes'); render(); });
    });
  });
})();
`;

export const demoPageOperation = defineOperation({
  method: 'get',
  path: '/demo',
  operationId: 'getDemoPage',
  tag: 'Service',
  security: [],
  summary: 'A landing page embedding the browser tracker',
  description:
    "Query: `program` (required), `aff`, `consent=required`, `api_base` (the page's own host or an origin listed in `DEMO_API_ORIGINS`). Off (404) unless `DEMO_PAGE` is true; by default on in embedded mode only.",
  responses: {
    200: { description: 'The page', contentType: 'text/html' },
    400: { description: 'Bad query', contentType: 'text/html' },
    404: { description: 'The demo page is off', contentType: 'text/html' },
  },
  errors: [],
});
