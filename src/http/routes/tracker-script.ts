import { sha256 } from '../../core/shared/crypto.ts';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { H3Event } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { defineOperation } from '../openapi/operation.ts';

const ROOT = fileURLToPath(new URL('../../../tracker/', import.meta.url));

/**
 * GET /tracker.js: the browser tracker bundle, with an ETag and a short public cache. Built on the
 * first request when `tracker/dist` is missing (fresh clone) or older than the tracker sources
 * (development), then kept for the process lifetime.
 */
export function trackerScriptRoute(ctx: RouteContext) {
  let cached: Promise<{ body: string; etag: string }> | null = null;
  const load = async () => {
    const file = `${ROOT}dist/tracker.js`;
    if (!existsSync(file) || newestSource(`${ROOT}src`) > statSync(file).mtimeMs) {
      ctx.log.info({ file }, 'building the browser tracker bundle');
      const { buildTracker } = (await import(`${ROOT}build.ts`)) as { buildTracker: () => Promise<void> };
      await buildTracker();
    }
    const body = readFileSync(file, 'utf8');
    return { body, etag: `"${sha256(body).toString('base64url').slice(0, 27)}"` };
  };
  return async (event: H3Event) => {
    cached ??= load().catch((err) => {
      cached = null;
      throw err;
    });
    const { body, etag } = await cached;
    const headers = {
      'content-type': 'application/javascript; charset=utf-8',
      etag,
      'cache-control': 'public, max-age=300',
      'access-control-allow-origin': '*',
    };
    if (event.req.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
    return new Response(body, { headers });
  };
}

/** Latest modification time under a folder (0 when it does not exist, e.g. a pruned deployment). */
function newestSource(dir: string): number {
  if (!existsSync(dir)) return 0;
  return Math.max(
    0,
    ...readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => statSync(`${d.parentPath}/${d.name}`).mtimeMs),
  );
}

export const trackerScriptOperation = defineOperation({
  method: 'get',
  path: '/tracker.js',
  operationId: 'getTrackerScript',
  tag: 'Service',
  security: [],
  summary: 'The browser tracker bundle',
  headers: { 'if-none-match': { description: 'ETag of a cached copy', required: false } },
  responses: {
    200: { description: 'The script', contentType: 'application/javascript' },
    304: { description: 'Not modified' },
  },
  errors: [],
});
