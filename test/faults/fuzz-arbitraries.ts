/**
 * Generic fast-check generators for the fuzz tests: content types, near-valid bodies (a valid one
 * with fields replaced, dropped or added) and bodies carrying values that broke the service before.
 */
import fc from 'fast-check';

export const printable = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);
export const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'APPLICATION/JSON',
    '',
  ),
  printable,
);

/** A valid body with a few fields replaced by arbitrary JSON, dropped, or added. */
function mutated(base: Record<string, unknown>): fc.Arbitrary<string> {
  const keys = [...Object.keys(base), 'extra', '__proto__', 'constructor', ''];
  return fc
    .array(fc.tuple(fc.constantFrom(...keys), fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined })), {
      minLength: 1,
      maxLength: 4,
    })
    .map((edits) => {
      const entries = new Map(Object.entries(base));
      for (const [k, v] of edits) {
        if (v === undefined) entries.delete(k);
        else entries.set(k, v);
      }
      return JSON.stringify(Object.fromEntries(entries));
    });
}

/** Values that broke the service before (issue: hostile traffic), as raw JSON text. */
const DEEP = 10_000;
const HOSTILE_RAW = [
  JSON.stringify('\u0000'),
  JSON.stringify('a\u0000b'),
  JSON.stringify('\ud800'),
  JSON.stringify('x\udfffy'),
  JSON.stringify('\udc00\ud800'),
  '9223372036854775808',
  '-9223372036854775808',
  '9223372036854775807',
  '18446744073709551616',
  `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`,
  `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`,
  `{"\u0000":1}`,
  `{"\ud800":"x"}`,
  JSON.stringify('x'.repeat(300)),
];
const PLACEHOLDER = '"__hostile_value__"';

/** Every path to a value in `v` (objects and arrays), at most `max` of them. */
function pathsOf(
  v: unknown,
  prefix: Array<string | number> = [],
  out: Array<Array<string | number>> = [],
): Array<Array<string | number>> {
  if (out.length > 200) return out;
  if (v && typeof v === 'object') {
    for (const [k, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
      out.push([...prefix, k]);
      pathsOf(child, [...prefix, k], out);
    }
  }
  return out;
}

/** `base` with the value at one path (or a new key there) replaced by a hostile raw value. */
export function hostileIn(base: Record<string, unknown>): fc.Arbitrary<string> {
  return fc
    .record({ at: fc.nat(), raw: fc.constantFrom(...HOSTILE_RAW), asKey: fc.boolean() })
    .map(({ at, raw, asKey }) => {
      const copy = structuredClone(base);
      const paths = pathsOf(copy);
      const path = paths.length ? paths[at % paths.length]! : [];
      let holder: any = copy;
      for (const k of path.slice(0, -1)) holder = holder[k];
      const last = path.at(-1) ?? 'extra';
      if (asKey && holder && typeof holder === 'object' && !Array.isArray(holder))
        holder[`k\u0000${String(last)}`] = '__hostile_value__';
      else holder[last] = '__hostile_value__';
      return JSON.stringify(copy).replace(PLACEHOLDER, raw);
    });
}

/** Any body: mostly near-valid, sometimes valid, random JSON, random text, raw bytes or empty. */
export function bodyFor(valid: () => Record<string, unknown>): fc.Arbitrary<string | Uint8Array> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(null).chain(() => mutated(valid())) },
    { weight: 3, arbitrary: fc.constant(null).chain(() => hostileIn(valid())) },
    { weight: 1, arbitrary: fc.constant(null).map(() => JSON.stringify(valid())) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '{', '[]', 'null', '{"a":', '\uFEFF{}', '{"transaction_id":"x"}'.repeat(3)),
    },
  );
}
