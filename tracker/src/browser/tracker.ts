/**
 * The browser tracker (`tracker.js`), bundled by `tracker/build.ts` into a minified IIFE.
 * Spec "Browser tracker": reads `aff`, records the click, keeps the click id in the first-party
 * cookie `tracker_click_id`, and reports leads with the visitor's click. No API key is ever used
 * here (spec "Authentication" 7): click, lead and test calls are keyless.
 */
import type { TrackerData, TrackerInstance, TrackerResponse } from '../tracker-instance.ts';
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
  b[6] = (b[6] & 15) | 64;
  b[8] = (b[8] & 63) | 128;
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
  const apiBase = (attr('api-base') || w.TRACKER_API_BASE || originOf(script?.src) || location.origin).replace(/\/+$/, '');
  const consentMode = attr('consent') === 'required';
  const jar = createCookieJar(computeCookieDomain(location.hostname), location.protocol === 'https:');

  let allowed = !consentMode;
  let clickId: string | null = null;
  let affiliateUrl: string | null = null;
  let visitorId: string | null = null;
  let pendingClick = new URLSearchParams(location.search).get('aff') !== null;
  // A signup right after landing waits for the click call, so it binds the new click.
  let clickInFlight: Promise<unknown> = Promise.resolve();

  const post = async (path: string, body: object): Promise<TrackerResponse | null> => {
    try {
      const res = await fetch(apiBase + path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        credentials: 'omit',
      });
      const json: unknown = await res.json().catch(() => null);
      if (!res.ok) {
        log(path, 'failed with HTTP', res.status, json);
        return null;
      }
      return json && typeof json === 'object' ? (json as TrackerResponse) : null;
    } catch (err) {
      log(path, 'network error', err);
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
    const res = await post('/api/v1/track/click', {
      affiliate_url: href,
      page_url: href,
      referrer_url: document.referrer || null,
      existing_click_id: getClickId(),
      visitor_id: getVisitorId(),
    });
    // Consent may have been withdrawn while the call was in flight.
    if (!res || typeof res.click_id !== 'string' || !allowed) return;
    const days = typeof res.cookie_window_days === 'number' && res.cookie_window_days > 0
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
          log('signup not sent:', allowed ? 'no click id' : 'no consent');
          return null;
        }
        return post('/api/v1/track/browser-lead', {
          program_id: programId,
          customer_key: customerKey,
          email,
          click_id: click,
          visitor_id: getVisitorId(),
        });
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
      return { clickId: id, programId, hasAttribution: id !== null, affiliateUrl: affiliateUrl ?? jar.read(AFF_URL_COOKIE) };
    },
    trackTest(data) {
      if (!allowed) return Promise.resolve(null);
      return post('/api/v1/track/test', { program_id: programId, data: data ?? {} });
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
