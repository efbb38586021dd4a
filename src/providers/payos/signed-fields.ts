/**
 * PayOS signs `data` as the text `key=value&key=value…` over the sorted keys, with nothing escaped
 * and null, `"null"` and `"undefined"` all written as the empty string. That text is only a proof
 * of `data` if it can be read back one way: otherwise a value carrying `&transactionDateTime=…`
 * turns one signed delivery into another body with the same text (and the same signature), under
 * a different transfer reference. A `data` whose text could be partitioned differently is refused
 * before the signature is even computed.
 */
import type { JsonObject } from '../read-payload.ts';

/** PayOS's field names are camelCase identifiers (`WebhookData` in `@payos/node`). */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
/** A separator and a field name inside a value: `…&reference=`. */
const HIDDEN_FIELD = /&[A-Za-z][A-Za-z0-9_]*=/;
/** Strings the SDK writes as the empty string, like null: a reference `"null"` would sign as none. */
const WRITTEN_AS_EMPTY = new Set(['null', 'undefined']);

/**
 * True when the signed text of `data` has exactly one reading: every key is a field name, every
 * value a scalar, and no string value contains `&<field name>=` or is written as empty though it
 * is not. (With those, the text's `&name=` separators are exactly the keys', so the parse is unique.)
 */
export function hasUnambiguousSignedText(data: JsonObject): boolean {
  for (const [key, value] of Object.entries(data)) {
    if (!FIELD_NAME.test(key)) return false;
    if (value === null || typeof value === 'number' || typeof value === 'boolean') continue;
    if (typeof value !== 'string') return false; // objects sign as "[object Object]", arrays as JSON
    if (HIDDEN_FIELD.test(value) || WRITTEN_AS_EMPTY.has(value)) return false;
  }
  return true;
}
