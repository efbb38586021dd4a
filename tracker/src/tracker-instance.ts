/**
 * The browser tracker's public surface. `window.tracker` (from `tracker.js`) has this shape, and
 * `loadTracker()` resolves to it (a harmless no-op copy on the server side of a rendered app).
 * Type-only module: the browser bundle, the loader and merchants' code share it.
 */

/** What `getData()` returns: the attribution state as the browser currently sees it. */
export type TrackerData = {
  /** Value of the `tracker_click_id` cookie (or the click just recorded), null without attribution. */
  clickId: string | null;
  programId: number;
  /** `clickId !== null`. */
  hasAttribution: boolean;
  /** The affiliate link (full URL with `aff`) that produced `clickId`, when known. */
  affiliateUrl: string | null;
  /** The last refused tracking call (cleared by the next success), null when none. */
  lastError: TrackerError | null;
};

/** A tracking call the server refused (or could not be reached: `status` 0). */
export type TrackerError = {
  call: 'click' | 'lead' | 'test';
  status: number;
  /** The server's `error.code`, e.g. `invalid_request`, `forbidden`. */
  code: string | null;
  message: string;
  /** What to change, e.g. the program's domain the page must be on. */
  fix: string;
};

/** Parsed JSON body of a successful tracking call. */
export type TrackerResponse = Record<string, unknown>;

export type TrackerInstance = {
  /**
   * Reports a lead: binds the merchant's own user id (the same `customer_key` later sent with the
   * sale) to the visitor's click. Rejects with a TypeError when `customerKey` is empty; otherwise
   * never rejects: resolves to the server's JSON, or null when nothing was sent (no click, no
   * consent) or the call failed.
   */
  signup(customerKey: string, email?: string): Promise<TrackerResponse | null>;
  /** Click id from memory, else from the `tracker_click_id` cookie. */
  getClickId(): string | null;
  /** Visitor id from the `tracker_visitor_id` cookie; in consent mode, call after `consent(true)`. */
  getVisitorId(): string | null;
  /**
   * `true` allows cookies and calls (in consent mode, also reports the click of the landing URL);
   * `false` deletes the tracker cookies and stops all calls.
   */
  consent(granted: boolean): void;
  getData(): TrackerData;
  /** Sends a keyless test event; resolves to the server's JSON or null. Never rejects. */
  trackTest(data?: Record<string, unknown>): Promise<TrackerResponse | null>;
};
