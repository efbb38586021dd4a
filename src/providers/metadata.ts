/**
 * Reads the tracker keys a merchant puts into provider metadata (spec "Payment-provider metadata"):
 * `tracker_click_id`, `tracker_customer_key`, `program_id` and `tracker_visitor_id`, and (an
 * extension) `tracker_coupon_code`, the partner's code used at a checkout whose payload names its
 * discount by no code or id the service can match (Lemon Squeezy orders). Stripe calls
 * the object `metadata`, Paddle `custom_data`, Lemon Squeezy `meta.custom_data`.
 */
import { asRecord, readString } from './read-payload.ts';

export type TrackerMetadata =
  | {
      ok: true;
      clickId: string | null;
      customerKey: string | null;
      visitorId: string | null;
      couponCode: string | null;
    }
  | { ok: false; reason: 'program_mismatch' };

/**
 * Merges the keys of `sources` (first source holding a key wins; non-objects are skipped) and
 * checks `program_id`. One provider account can sell for several programs, so a checkout tagged
 * for another program must not be attributed on this connection's program: it is ignored.
 */
export function readTrackerMetadata(sources: unknown[], programId: number): TrackerMetadata {
  const records = sources.map(asRecord).filter((record) => record !== null);
  const pick = (key: string): string | null => {
    for (const record of records) {
      const value = readMetadataString(record[key]);
      if (value !== null) return value;
    }
    return null;
  };
  const taggedProgram = pick('program_id');
  if (taggedProgram !== null && taggedProgram !== String(programId)) {
    return { ok: false, reason: 'program_mismatch' };
  }
  return {
    ok: true,
    clickId: pick('tracker_click_id'),
    customerKey: pick('tracker_customer_key'),
    visitorId: pick('tracker_visitor_id'),
    couponCode: pick('tracker_coupon_code'),
  };
}

/**
 * Strings only, trimmed, empty → null. Integers are accepted too because Paddle `custom_data` and
 * Lemon Squeezy `checkout_data.custom` keep JSON types, so `program_id: 12` is a plausible value.
 */
function readMetadataString(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : null;
  return readString(value);
}
