/**
 * What PostgreSQL can store: text and jsonb reject U+0000, and a lone UTF-16 surrogate cannot be
 * encoded in UTF-8 (the driver turns it into U+FFFD, so two different ids would collide). Deep
 * nesting is refused before anything walks it recursively (BullMQ's serialiser overflows the
 * stack around 5k levels).
 */

/** Deepest JSON nesting accepted anywhere (API bodies, webhook payloads). */
export const MAX_JSON_DEPTH = 32;

export type JsonProblem = { path: string; problem: 'nul_character' | 'lone_surrogate' | 'too_deep' };

const badString = (s: string): JsonProblem['problem'] | null =>
  s.includes('\u0000') ? 'nul_character' : s.isWellFormed() ? null : 'lone_surrogate';

/**
 * Where `value` cannot be stored, as a dotted path (`line_items.a.0`): nesting deeper than
 * `MAX_JSON_DEPTH` first (nothing may walk such a value recursively), else the first string
 * (value or key) PostgreSQL refuses; `null` when all is storable.
 */
export function findUnstorableJson(value: unknown): JsonProblem | null {
  // Nearly every document is storable: one pass that builds no paths says so, and only a document
  // with a problem is walked again to name where (every request body and webhook goes through here).
  return isStorable(value, 0) ? null : locateProblem(value);
}

/** True when nothing in `v` is nested too deep or holds a string PostgreSQL refuses. */
function isStorable(v: unknown, depth: number): boolean {
  if (typeof v === 'string') return badString(v) === null;
  if (typeof v !== 'object' || v === null) return true;
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!isStorable(v[i], depth + 1)) return false;
    return true;
  }
  const record = v as Record<string, unknown>;
  for (const k of Object.keys(record)) {
    if (badString(k) !== null || !isStorable(record[k], depth + 1)) return false;
  }
  return true;
}

function locateProblem(value: unknown): JsonProblem | null {
  let first: JsonProblem | null = null;
  const walk = (v: unknown, path: string, depth: number): JsonProblem | null => {
    if (typeof v === 'string') {
      const problem = first ? null : badString(v);
      if (problem) first = { path, problem };
      return null;
    }
    if (typeof v !== 'object' || v === null) return null;
    if (depth >= MAX_JSON_DEPTH) return { path, problem: 'too_deep' };
    const entries = Array.isArray(v) ? v.entries() : Object.entries(v);
    for (const [k, child] of entries) {
      const at = path ? `${path}.${k}` : String(k);
      if (typeof k === 'string' && !first) {
        const keyProblem = badString(k);
        if (keyProblem) first = { path: at, problem: keyProblem };
      }
      const deep = walk(child, at, depth + 1);
      if (deep) return deep;
    }
    return null;
  };
  return walk(value, '', 0) ?? first;
}

/** Replaces NUL and lone surrogates with U+FFFD in every string and key (depth already checked). */
export function toStorableJson<T>(value: T): T {
  if (typeof value === 'string')
    return (badString(value) ? value.toWellFormed().replaceAll('\u0000', '\uFFFD') : value) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(toStorableJson) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [toStorableJson(k), toStorableJson(v)])) as T;
}

/** Describes a problem for an error message. */
export function describeJsonProblem(p: JsonProblem): string {
  const where = p.path || 'body';
  return p.problem === 'too_deep'
    ? `${where}: nested deeper than ${MAX_JSON_DEPTH} levels`
    : `${where}: contains ${p.problem === 'nul_character' ? 'a NUL character (\\u0000)' : 'an unpaired UTF-16 surrogate'}, which cannot be stored`;
}
