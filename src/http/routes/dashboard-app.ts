import { execFile } from 'node:child_process';
import { sha256 } from '../../core/shared/crypto.ts';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import type { HttpContext } from '../http-context.ts';
import { defineOperation } from '../openapi/operation.ts';

const DIST = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));
const BUILD = fileURLToPath(new URL('../../../dashboard/build.ts', import.meta.url));

/**
 * The app may load its own scripts, styles and API only: no inline script or style, no other
 * origin (everything is bundled, no CDN), no framing.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  // Invite links carry their token in the path: never leak it to another site.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

type BuildModule = { dashboardIsStale(): boolean };

/**
 * Builds the dashboard bundle when it is missing or older than its sources (fresh clone,
 * development), as the tracker bundle is. A deployment without the sources or without Vite serves
 * the bundle it has. The build runs in a child process: Vite loaded into the service kept about
 * 200 MiB resident for the process lifetime (bench peak RSS 389 -> 632 MiB after a source change).
 */
export async function ensureDashboardBundle(ctx: Pick<HttpContext, 'log'>): Promise<void> {
  if (!existsSync(BUILD)) return;
  let mod: BuildModule;
  try {
    mod = (await import(BUILD)) as BuildModule;
    if (!mod.dashboardIsStale()) return;
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'cannot check the dashboard bundle; serving what is built');
    return;
  }
  ctx.log.info('building the dashboard bundle (sources newer than dashboard/dist)');
  try {
    await buildInChildProcess();
  } catch (err) {
    if (existsSync(join(DIST, 'index.html')))
      ctx.log.warn({ err: (err as Error).message }, 'dashboard build failed; serving the previous bundle');
    else throw err;
  }
}

function buildInChildProcess(): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BUILD], { timeout: 300_000, maxBuffer: 4 * 2 ** 20 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${err.message.split('\n')[0]}${stderr ? `: ${stderr.trim().slice(-500)}` : ''}`));
      else resolve();
    });
  });
}

/** GET /dashboard/** and /portal/**: the single-page app (index.html for every app path) and its assets. */
export function registerDashboardApp(app: H3, ctx: HttpContext): void {
  let index: Promise<{ body: string; etag: string }> | null = null;
  const loadIndex = async () => {
    await ensureDashboardBundle(ctx);
    const body = readFileSync(join(DIST, 'index.html'), 'utf8');
    return { body, etag: `"${sha256(body).toString('base64url').slice(0, 27)}"` };
  };
  const page = async (event: H3Event) => {
    index ??= loadIndex().catch((err) => {
      index = null;
      throw err;
    });
    let built: { body: string; etag: string };
    try {
      built = await index;
    } catch (err) {
      ctx.log.error({ err: (err as Error).message }, 'dashboard bundle unavailable');
      return new Response('The dashboard is not built: run `node dashboard/build.ts` (needs the dev dependencies).', {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    }
    const headers = {
      ...SECURITY_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      etag: built.etag,
    };
    if (event.req.headers.get('if-none-match') === built.etag) return new Response(null, { status: 304, headers });
    return new Response(built.body, { headers });
  };
  const asset = async (event: H3Event) => {
    const name = event.context.params?.file ?? '';
    const type = TYPES[extname(name)];
    if (!/^[\w.-]+$/.test(name) || !type) return new Response('Not found', { status: 404, headers: SECURITY_HEADERS });
    try {
      const body = await readFile(join(DIST, 'assets', name));
      // File names carry a content hash: cache for good.
      return new Response(body, {
        headers: { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' },
      });
    } catch {
      return new Response('Not found', { status: 404, headers: SECURITY_HEADERS });
    }
  };
  app.get('/dashboard/assets/:file', asset);
  for (const base of ['/dashboard', '/portal']) {
    app.get(base, page);
    app.get(`${base}/**`, page);
  }
}

const pageResponses = {
  200: { description: "The app's page (the app routes in the browser)", contentType: 'text/html' },
  304: { description: "Not modified (`If-None-Match` matched the page's ETag)" },
  503: { description: 'The bundle is not built', contentType: 'text/plain' },
};
const appPage = (path: string, operationId: string, summary: string) =>
  defineOperation({
    method: 'get',
    path,
    operationId,
    summary,
    tag: 'Apps',
    security: [],
    responses: pageResponses,
    errors: [],
    description: "Served under a content security policy that allows this origin's scripts, styles and API only.",
  });

/** The apps are documented as pages: their API calls are the documented operations. */
export const dashboardAppOperations = [
  appPage('/dashboard', 'getDashboard', 'The operator dashboard'),
  appPage('/dashboard/**', 'getDashboardPath', 'A dashboard page (any path below /dashboard)'),
  appPage('/portal', 'getPortal', 'The partner portal'),
  appPage('/portal/**', 'getPortalPath', 'A portal page (any path below /portal, invite links included)'),
  defineOperation({
    method: 'get',
    path: '/dashboard/assets/:file',
    operationId: 'getAppAsset',
    summary: 'A script, style, image or font of the apps (content-hashed name, cached for good)',
    tag: 'Apps',
    security: [],
    errors: [],
    params: { file: z.string().regex(/^[\w.-]+$/) },
    responses: {
      200: {
        description: 'The file',
        contentType: [...new Set(Object.values(TYPES).map((t) => t.split(';')[0] as string))],
      },
      404: { description: 'No such asset', contentType: 'text/plain' },
    },
  }),
];
