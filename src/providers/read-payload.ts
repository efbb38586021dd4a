/**
 * Total readers for untrusted webhook JSON. A provider may send any shape (API versions drift,
 * fields go missing), so every reader returns `null` instead of throwing; normalisers turn a
 * `null` into an `ignoredReason`.
 */
import { sha256Hex } from '../core/shared/crypto.ts';
import type { VerifyResult } from './adapter.ts';

export type JsonObject = Record<string, unknown>;

export function asRecord(value: unknown): JsonObject | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/** Follows a path of object keys; `undefined` as soon as a step is not an object. */
export function at(value: unknown, ...path: string[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    const record = asRecord(current);
    if (!record || !Object.hasOwn(record, key)) return undefined;
    current = record[key];
  }
  return current;
}

/** A trimmed, non-empty string, else `null`. */
export function readString(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * An object id: a string, a safe integer (Lemon Squeezy numeric ids) or an expanded object with
 * an `id` (Stripe expands `payment_intent`, `invoice`, `subscription` on request).
 */
export function readId(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : null;
  const record = asRecord(value);
  return record ? readId(typeof record.id === 'object' ? null : record.id) : readString(value);
}

/** A safe integer number, else `null` (never a float, never a numeric string). */
export function readInteger(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

/**
 * Minor units sent either as a number or as a string of digits (Paddle sends money as strings,
 * e.g. `"4900"`). Rejects signs, decimals, exponents and anything beyond a safe integer.
 */
export function readMinorUnits(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value)) return null;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : null;
}

/** Upper-cased currency code; the core validates it against the supported list. */
export function readCurrency(value: unknown): string | null {
  const code = readString(value);
  return code ? code.toUpperCase() : null;
}

export function isoFromUnixSeconds(value: unknown): string | null {
  const seconds = readInteger(value);
  if (seconds === null) return null;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Creem timestamps are milliseconds since the epoch. */
export function isoFromUnixMilliseconds(value: unknown): string | null {
  const ms = readInteger(value);
  if (ms === null) return null;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export function isoFromString(value: unknown): string | null {
  const text = readString(value);
  if (!text) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Inbox keys and BullMQ job ids must not contain `:` (BullMQ uses it as its key separator). */
export function sanitiseKey(key: string): string {
  return key.replaceAll(':', '-');
}

/**
 * Last-resort dedupe key for a payload that lacks its provider id: a digest of the parsed JSON,
 * so an identical redelivery still collapses onto the same inbox row.
 */
export function computeContentKey(event: unknown): string {
  const text = JSON.stringify(event) ?? 'undefined';
  return `sha256-${sha256Hex(text)}`;
}

/**
 * The last step of every verification: a body whose signature matched is accepted if it is a
 * JSON object. Never throws.
 */
export function acceptVerifiedBody(rawBody: Uint8Array): VerifyResult {
  let event: JsonObject | null = null;
  try {
    event = asRecord(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(rawBody)));
  } catch {
    /* not UTF-8 or not JSON */
  }
  return event ? { ok: true, event } : { ok: false, reason: 'invalid_json' };
}

/**
 * The discount codes and discount ids a payment names, for coupon attribution: each value is an
 * id or code string, or a discount object whose `code` and `id` are taken (a provider that
 * expands the discount sends the object where it otherwise sends the id). Duplicates dropped.
 */
export function readDiscountCodes(...values: unknown[]): string[] {
  const codes = new Set<string>();
  for (const value of values) {
    const record = asRecord(value);
    for (const v of record ? [record.code, record.id] : [value]) {
      const s = readString(v);
      if (s) codes.add(s);
    }
  }
  return [...codes];
}

/** `list[].field` of every element of an array (nothing when it is not one). */
export function each(list: unknown, field: string): unknown[] {
  return Array.isArray(list) ? list.map((item) => asRecord(item)?.[field]) : [];
}
