import type { H3Event } from 'h3';
import { visit } from 'jsonc-parser';
import { AppError } from '../core/shared/errors.ts';
import { describeJsonProblem, findUnstorableJson } from '../core/shared/storable-json.ts';

/**
 * Reads a JSON request body: 415 unless `application/json`, 413 past `limit` bytes (counted while
 * streaming, so a missing or lying Content-Length does not help), 400 for malformed JSON, a
 * non-object body, a key repeated in one object, or a string or nesting PostgreSQL cannot store
 * (`storable-json.ts`).
 */
export async function readJson(event: H3Event, limit: number): Promise<Record<string, unknown>> {
  const type = event.req.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type.trim())) {
    throw new AppError('unsupported_media_type', 'Content-Type must be application/json', {
      content_type: type || null,
    });
  }
  const bytes = await readLimited(event, limit);
  let value: unknown;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new AppError('invalid_request', 'Request body must be a JSON object');
  // Before any schema or queue sees it: a NUL, a lone surrogate or 10k-deep nesting is the
  // caller's error (400 naming the field), never a database or serialiser failure (500/503).
  const problem = findUnstorableJson(value);
  if (problem)
    throw new AppError('invalid_request', describeJsonProblem(problem), {
      field: problem.path || null,
      problem: problem.problem,
    });
  // After the nesting check: the visitor recurses, so only bounded depths reach it.
  const duplicate = findDuplicateKey(text);
  if (duplicate)
    throw new AppError('invalid_request', `Duplicate key "${duplicate}": each key may appear once per object`, {
      field: duplicate,
    });
  return value as Record<string, unknown>;
}

/** Reads the raw body bytes with a size limit (also used for webhook signature checks). */
export async function readLimited(event: H3Event, limit: number): Promise<Uint8Array> {
  const declared = Number(event.req.headers.get('content-length') ?? NaN);
  const tooLarge = () =>
    new AppError('payload_too_large', `Request body exceeds ${limit} bytes`, { limit_bytes: limit });
  if (declared > limit) throw tooLarge();
  const body = event.req.body;
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      // The client closed the connection before its body ended: nobody reads the answer, and it is
      // the client's doing, so it is logged as a request (info), not as an unhandled error.
      throw new AppError('invalid_request', 'The request body ended early: the client closed the connection');
    });
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The first key repeated within one object (its dotted path), or null. `JSON.parse` keeps the last
 * value, a gateway or log in front of the service may read the first: the same bytes would mean two
 * different requests (`{"amount_cents":1,…,"amount_cents":100000}`). The scan is jsonc-parser's
 * event visitor over text `JSON.parse` already accepted.
 */
export function findDuplicateKey(text: string): string | null {
  const open: Array<Set<string>> = [];
  let found: string | null = null;
  visit(text, {
    onObjectBegin: () => {
      open.push(new Set());
    },
    onObjectEnd: () => {
      open.pop();
    },
    onObjectProperty: (property, _offset, _length, _line, _column, path) => {
      const keys = open.at(-1)!;
      if (found === null && keys.has(property)) found = [...path(), property].join('.');
      keys.add(property);
    },
  });
  return found;
}
