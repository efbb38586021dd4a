/**
 * The browser tracker (`tracker.js`), bundled by `tracker/build.ts` into a minified IIFE.
 * Spec "Browser tracker": reads `aff`, records the click, keeps the click id in the first-party
 * cookie `tracker_click_id`, and reports leads with the visitor's click. No API key is ever used
 * here (spec "Authentication" 7): click, lead and test calls are keyless.
 */
import type { TrackerData, TrackerError, TrackerInstance, TrackerResponse } from '../tracker-instance.ts';
import { computeCookieDomain } from './cookie-domain.ts';
import { createCookieJar } from './cookie-jar.ts';

type TrackerWindow = Window & { tracker?: TrackerInstance; TRACKER_API_BASE?: string };

const CLICK_COOKIE = 'tracker_click_id';
const VISITOR_COOKIE = 'tracker_visitor_id';
const AFF_URL_COOKIE = 'tracker_aff_url';
const DAY_SECONDS = 86_400;
const DEFAULT_CLICK_DAYS = 60;
const VISITOR_DAYS = 365;

function createVisitorId(): string {
  const c = crypto;
  // randomUUID exists only in secure contexts; merchant pages may still be plain http.
  if (c.randomUUID) return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 15) | 64;
  b[8] = (b[8]! & 63) | 128;
  const h = Array.from(b, (x) => (x + 256).toString(16).slice(1)).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function originOf(src: string | undefined): string | null {
  try {
    return src ? new URL(src).origin : null;
  } catch {
    return null;
  }
}

type ErrorBody = {
  error?: { code?: unknown; message?: unknown; details?: { program_domain?: unknown; origin?: unknown } };
} | null;

/** What to change when the server refuses a call: the program domain rule explained for this page. */
function fixFor(
  call: TrackerError['call'],
  status: number,
  code: string | null,
  domain: string | null,
  host: string,
): string {
  if (status === 0)
    return 'the API could not be reached: check data-tracker-api-base and that the server allows this origin';
  if (call === 'click' && code === 'invalid_request' && domain) {
    return (
      `this page's host "${host}" is not the program's domain "${domain}" or under it: open the partner link on ${domain}; ` +
      `to test locally, map a name under ${domain} to 127.0.0.1 (hosts file, e.g. local.${domain}) and open the page there`
    );
  }
  if (code === 'forbidden' && call !== 'click') {
    return domain
      ? `keyless calls must come from a page on the program's domain "${domain}" (this page: "${host}")`
      : `the program has no domain, so keyless calls are accepted only from localhost pages (this page: "${host}"): set the program's domain to your site's`;
  }
  if (code === 'not_found') return 'check data-tracker-program-id and the partner code in the link (aff)';
  return 'see the message';
}

function start(w: TrackerWindow): void {
  // A second copy of the script on the same page keeps the first instance.
  if (w.tracker && typeof w.tracker.getData === 'function') return;

  const script = document.currentScript as HTMLScriptElement | null;
  const attr = (name: string): string | null => (script ? script.getAttribute('data-tracker-' + name) : null);
  const debugAttr = attr('debug');
  const debug = debugAttr !== null && debugAttr !== 'false';
  const log = (...args: unknown[]): void => {
    if (debug) console.debug('[tracker]', ...args);
  };

  const programId = Number(attr('program-id'));
  if (!Number.isSafeInteger(programId) || programId <= 0) {
    console.error('[tracker] data-tracker-program-id must be a positive integer; tracker not started');
    return;
  }
  const apiBase = (attr('api-base') || w.TRACKER_API_BASE || originOf(script?.src) || location.origin).replace(
    /\/+$/,
    '',
  );
  const consentMode = attr('consent') === 'required';
  const jar = createCookieJar(computeCookieDomain(location.hostname), location.protocol === 'https:');

  let allowed = !consentMode;
  let clickId: string | null = null;
  let affiliateUrl: string | null = null;
  let visitorId: string | null = null;
  let pendingClick = new URLSearchParams(location.search).get('aff') !== null;
  // A signup right after landing waits for the click call, so it binds the new click.
  let clickInFlight: Promise<unknown> = Promise.resolve();
  let lastError: TrackerError | null = null;

  /** Remembers a refused call for `getData().lastError`; in debug mode says the code and the fix. */
  const refused = (call: TrackerError['call'], status: number, json: ErrorBody, networkError?: unknown): void => {
    const e = json?.error;
    const code = typeof e?.code === 'string' ? e.code : null;
    const domain = typeof e?.details?.program_domain === 'string' ? e.details.program_domain : null;
    const message = typeof e?.message === 'string' ? e.message : networkError ? String(networkError) : `HTTP ${status}`;
    lastError = { call, status, code, message, fix: fixFor(call, status, code, domain, location.hostname) };
    if (debug)
      console.warn(`[tracker] ${call} refused (${status}${code ? ' ' + code : ''}): ${message}. Fix: ${lastError.fix}`);
  };

  const post = async (path: string, body: object, call: TrackerError['call']): Promise<TrackerResponse | null> => {
    try {
      const res = await fetch(apiBase + path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        credentials: 'omit',
      });
      const json: unknown = await res.json().catch(() => null);
      if (!res.ok) {
        refused(call, res.status, json as ErrorBody);
        return null;
      }
      lastError = null;
      return json && typeof json === 'object' ? (json as TrackerResponse) : null;
    } catch (err) {
      refused(call, 0, null, err);
      return null;
    }
  };

  const getClickId = (): string | null => clickId ?? jar.read(CLICK_COOKIE);
  const getVisitorId = (): string | null => visitorId ?? jar.read(VISITOR_COOKIE);

  const ensureVisitorId = (): void => {
    visitorId = getVisitorId() || createVisitorId();
    jar.write(VISITOR_COOKIE, visitorId, VISITOR_DAYS * DAY_SECONDS);
  };

  const reportClick = async (): Promise<void> => {
    pendingClick = false;
    const href = location.href;
    const res = await post(
      '/api/v1/track/click',
      {
        affiliate_url: href,
        page_url: href,
        referrer_url: document.referrer || null,
        existing_click_id: getClickId(),
        visitor_id: getVisitorId(),
      },
      'click',
    );
    // Consent may have been withdrawn while the call was in flight.
    if (!res || typeof res.click_id !== 'string' || !allowed) return;
    const days =
      typeof res.cookie_window_days === 'number' && res.cookie_window_days > 0
        ? res.cookie_window_days
        : DEFAULT_CLICK_DAYS;
    clickId = res.click_id;
    affiliateUrl = href;
    jar.write(CLICK_COOKIE, clickId, days * DAY_SECONDS);
    jar.write(AFF_URL_COOKIE, href, days * DAY_SECONDS);
    log('click recorded', clickId, 'for', days, 'days');
  };

  const startClick = (): void => {
    clickInFlight = reportClick();
  };

  const instance: TrackerInstance = {
    signup(customerKey, email) {
      if (typeof customerKey !== 'string' || customerKey.trim() === '') {
        return Promise.reject(new TypeError('tracker.signup: customerKey is required'));
      }
      return clickInFlight.then(() => {
        const click = getClickId();
        if (!allowed || !click) {
          const why = allowed
            ? 'no click id (the visitor did not arrive through a partner link, or the click was refused)'
            : 'no consent';
          if (debug) console.warn(`[tracker] signup not sent: ${why}`);
          return null;
        }
        return post(
          '/api/v1/track/browser-lead',
          {
            program_id: programId,
            customer_key: customerKey,
            email,
            click_id: click,
            visitor_id: getVisitorId(),
          },
          'lead',
        );
      });
    },
    getClickId,
    getVisitorId,
    consent(granted) {
      allowed = granted === true;
      log('consent', allowed);
      if (allowed) {
        ensureVisitorId();
        if (pendingClick) startClick();
        return;
      }
      clickId = affiliateUrl = visitorId = null;
      jar.remove(CLICK_COOKIE);
      jar.remove(VISITOR_COOKIE);
      jar.remove(AFF_URL_COOKIE);
    },
    getData(): TrackerData {
      const id = getClickId();
      return {
        clickId: id,
        programId,
        hasAttribution: id !== null,
        affiliateUrl: affiliateUrl ?? jar.read(AFF_URL_COOKIE),
        lastError,
      };
    },
    trackTest(data) {
      if (!allowed) return Promise.resolve(null);
      return post('/api/v1/track/test', { program_id: programId, data: data ?? {} }, 'test');
    },
  };

  w.tracker = Object.freeze(instance);
  log('ready', { programId, apiBase, consentMode });
  if (allowed) {
    ensureVisitorId();
    if (pendingClick) startClick();
  }
  w.dispatchEvent(new CustomEvent('tracker:ready', { detail: instance }));
}

if (typeof window !== 'undefined' && typeof document !== 'undefined') start(window as TrackerWindow);
