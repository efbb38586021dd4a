/**
 * ESM loader for bundlers and server-rendered apps: injects `tracker.js` once and resolves to
 * `window.tracker`. On the server (no `window`) it resolves to a no-op instance, so the same
 * component code runs on both sides (spec "Browser tracker": all methods do nothing server-side).
 */
import type { TrackerData, TrackerInstance } from './tracker-instance.ts';

export type { TrackerData, TrackerError, TrackerInstance, TrackerResponse } from './tracker-instance.ts';

/** Placeholder for the hosted script; merchants on their own deployment pass `scriptUrl`. */
export const PRODUCTION_SCRIPT_URL = 'https://tracker.example.com/tracker.js';
export const LOCAL_SCRIPT_URL = 'http://localhost:3000/tracker.js';
const DEFAULT_TIMEOUT_MS = 15_000;

export type TrackerEnv = 'production' | 'local';

export type LoadTrackerOptions = {
  programId: number;
  /** Selects the script URL; default `production`. */
  env?: TrackerEnv;
  /** Overrides `env`. */
  scriptUrl?: string;
  /** Console debug logs (`data-tracker-debug`). Default false. */
  debug?: boolean;
  /** API base for the tracker's calls (`data-tracker-api-base`); default: the script's origin. */
  apiBase?: string;
  /** Consent mode (`data-tracker-consent="required"`): nothing stored or sent before `consent(true)`. */
  consentRequired?: boolean;
  /** Rejects when the script has neither started nor failed after this long. Default 15 000 ms. */
  timeoutMs?: number;
};

export function resolveScriptUrl(env: TrackerEnv = 'production', scriptUrl?: string): string {
  if (scriptUrl) return scriptUrl;
  return env === 'local' ? LOCAL_SCRIPT_URL : PRODUCTION_SCRIPT_URL;
}

/** The server-side stand-in: every method is harmless and reports "no attribution". */
export function createNoopTracker(programId: number): TrackerInstance {
  const data: TrackerData = { clickId: null, programId, hasAttribution: false, affiliateUrl: null, lastError: null };
  return {
    signup: () => Promise.resolve(null),
    getClickId: () => null,
    getVisitorId: () => null,
    consent: () => {},
    getData: () => ({ ...data }),
    trackTest: () => Promise.resolve(null),
  };
}

function startedTracker(): TrackerInstance | null {
  const tracker = (window as Window & { tracker?: TrackerInstance }).tracker;
  return tracker && typeof tracker.getData === 'function' ? tracker : null;
}

/**
 * Resolves to the page's tracker, injecting the script unless a tracker script tag is already
 * present (then it waits for that one). Rejects on an invalid `programId`, when the script fails
 * to load (blocked, wrong URL) or does not start in time: callers should catch, an ad blocker is
 * an ordinary visitor setup.
 */
export function loadTracker(options: LoadTrackerOptions): Promise<TrackerInstance> {
  const { programId, env = 'production', scriptUrl, debug = false, apiBase, consentRequired = false } = options;
  if (!Number.isSafeInteger(programId) || programId <= 0) {
    return Promise.reject(new TypeError('loadTracker: programId must be a positive integer'));
  }
  if (typeof window === 'undefined' || typeof document === 'undefined') {
    return Promise.resolve(createNoopTracker(programId));
  }
  const ready = startedTracker();
  if (ready) return Promise.resolve(ready);

  const url = resolveScriptUrl(env, scriptUrl);
  let script = document.querySelector<HTMLScriptElement>('script[data-tracker-program-id]');
  if (!script) {
    script = document.createElement('script');
    script.src = url;
    script.async = true;
    script.setAttribute('data-tracker-program-id', String(programId));
    if (apiBase) script.setAttribute('data-tracker-api-base', apiBase);
    if (consentRequired) script.setAttribute('data-tracker-consent', 'required');
    if (debug) script.setAttribute('data-tracker-debug', 'true');
    document.head.appendChild(script);
  }
  const tag = script;

  return new Promise<TrackerInstance>((resolve, reject) => {
    const finish = (): void => {
      clearTimeout(timer);
      tag.removeEventListener('load', onLoad);
      tag.removeEventListener('error', onError);
      window.removeEventListener('tracker:ready', onLoad);
    };
    // `load` fires after the script ran, so a missing tracker means it refused to start.
    const onLoad = (): void => {
      const tracker = startedTracker();
      finish();
      if (tracker) resolve(tracker);
      else
        reject(
          new Error(`tracker script did not start (see the console; is data-tracker-program-id valid?): ${tag.src}`),
        );
    };
    const onError = (): void => {
      finish();
      reject(new Error(`tracker script failed to load: ${tag.src}`));
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`tracker did not start within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms (${tag.src})`));
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    tag.addEventListener('load', onLoad);
    tag.addEventListener('error', onError);
    window.addEventListener('tracker:ready', onLoad);
  });
}
