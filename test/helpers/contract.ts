/**
 * The contract check: every response the suite receives from the real server must be one the
 * OpenAPI document describes for its route and status, body validated with Ajv (JSON Schema
 * 2020-12, formats included). harness.request and the HTTP helpers call it on every response.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/http/openapi/build-document.ts';
import { OPERATIONS } from '../../src/http/openapi/operations.ts';
import { openApiPath } from '../../src/http/openapi/operation.ts';

type Json = Record<string, any>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Route = { method: string; template: string; re: RegExp; statics: number };
let state: { doc: Json; ajv: Ajv2020; routes: Route[]; compiled: Map<string, ValidateFunction> } | null = null;

function routeOf(method: string, h3Path: string, template: string): Route {
  const segments = h3Path.split('/');
  const pattern = segments
    .map((s) => (s === '**' ? '.*' : s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return {
    method: method.toUpperCase(),
    template,
    re: new RegExp(`^${pattern}$`),
    statics: segments.filter((s) => s && !s.startsWith(':') && s !== '**').length,
  };
}

/** The document the server serves (same builder, same operations). */
export function openApiDocument(): Json {
  return load().doc;
}

function load() {
  if (state) return state;
  const doc = buildOpenApiDocument(OPERATIONS, { version: 'test' }) as Json;
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
  const routes = OPERATIONS.map((op) => routeOf(op.method, op.path, openApiPath(op.path)));
  state = { doc, ajv, routes, compiled: new Map() };
  return state;
}

/** The documented operation a request lands on: the most specific template (like the router). */
export function findOperation(method: string, path: string): { template: string; operation: Json } | null {
  const s = load();
  const pathname = path.split('?')[0] as string;
  const hit = s.routes
    .filter((r) => r.method === method.toUpperCase() && r.re.test(pathname))
    .sort((a, b) => b.statics - a.statics)[0];
  if (!hit) return null;
  return { template: hit.template, operation: s.doc.paths[hit.template][method.toLowerCase()] };
}

/** Throws when the response is not described by the document. `body` is the parsed JSON or the text. */
export function assertDocumentedResponse(
  method: string,
  path: string,
  res: { status: number; headers: Headers; body: unknown },
): void {
  const s = load();
  const where = `${method.toUpperCase()} ${path} → ${res.status}`;
  // HEAD is answered by every GET route: same statuses and headers, no body.
  const head = method.toUpperCase() === 'HEAD';
  const found = findOperation(head ? 'GET' : method, path);
  if (!found) {
    // No route: h3's own 404 for an unknown path (or 400 for one it cannot decode), rendered as
    // the platform envelope.
    const code = (res.body as Json)?.error?.code;
    if (
      method.toUpperCase() === 'OPTIONS' ||
      (res.status === 404 && code === 'not_found') ||
      (res.status === 400 && code === 'invalid_request')
    )
      return;
    throw new Error(`contract: ${where}: no documented operation`);
  }
  const response = found.operation.responses[String(res.status)];
  if (!response)
    throw new Error(
      `contract: ${where}: status not documented for ${found.template} (documented: ${Object.keys(found.operation.responses).join(', ')}); body ${JSON.stringify(res.body)?.slice(0, 300)}`,
    );
  if (res.status === 304 || res.status === 204 || (res.status === 202 && !response.content)) return;
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const media = response.content?.[contentType];
  if (!media)
    throw new Error(
      `contract: ${where}: content type "${contentType}" not documented (documented: ${Object.keys(response.content ?? {}).join(', ')})`,
    );
  if (contentType !== 'application/json' || head) return;
  const key = `${found.template} ${method} ${res.status}`;
  let validate = s.compiled.get(key);
  if (!validate) s.compiled.set(key, (validate = s.ajv.compile(media.schema)));
  if (!validate(res.body)) {
    throw new Error(
      `contract: ${where}: body does not match the document: ${s.ajv.errorsText(validate.errors, { separator: '; ' })}\nbody: ${JSON.stringify(res.body)?.slice(0, 600)}`,
    );
  }
}
