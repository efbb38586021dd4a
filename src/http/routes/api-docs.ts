import { readFile } from 'node:fs/promises';
import type { H3 } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { z } from 'zod';
import type { ApiReferenceConfiguration } from '@scalar/api-reference';
import pkg from '../../../package.json' with { type: 'json' };
import { buildOpenApiDocument } from '../openapi/build-document.ts';
import { defineOperation, type Operation } from '../openapi/operation.ts';

/**
 * The reference page loads Scalar's standalone bundle and its initialiser from this server: no
 * CDN, no inline script, no fonts or calls to third parties (`withDefaultFonts: false`; the CSP
 * would block them anyway). Scalar injects its styles at run time, hence `'unsafe-inline'` for
 * styles only.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>Partner conversion tracking API reference</title></head>
<body><div id="app"></div><script src="/docs/scalar.js"></script><script src="/docs/init.js"></script></body>
</html>
`;
/**
 * The renderer's configuration (@scalar/api-reference's own options): this server's document, no
 * fonts from elsewhere, and none of the renderer's hosted-service controls: no "Ask AI" agent
 * (`agent.disabled`), no "Generate MCP" (`mcp.disabled`), no developer tools with their "Deploy"
 * and "Share" (`showDeveloperTools: 'never'`, shown on localhost by default), no telemetry.
 */
export const API_REFERENCE_CONFIG = {
  url: '/openapi.json',
  withDefaultFonts: false,
  hideClientButton: false,
  defaultOpenAllTags: true,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  telemetry: false,
  favicon: '/favicon.svg',
} satisfies Partial<ApiReferenceConfiguration> & { agent: { disabled: boolean } }; // agent: a per-document option
const INIT = `Scalar.createApiReference('#app', ${JSON.stringify(API_REFERENCE_CONFIG)});\n`;

/** GET /openapi.json, GET /docs and its two scripts. The document is built once per app, on first use. */
export function registerApiDocs(app: H3, ctx: RouteContext, operations: readonly Operation[]): void {
  let document: string | null = null;
  let bundle: Promise<string> | null = null;
  app.get('/openapi.json', () => {
    document ??= JSON.stringify(
      buildOpenApiDocument(operations, { version: pkg.version, serverUrl: ctx.config.PUBLIC_BASE_URL }),
    );
    return new Response(document, {
      headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' },
    });
  });
  app.get(
    '/docs',
    () =>
      new Response(PAGE, {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': CSP,
          'x-content-type-options': 'nosniff',
        },
      }),
  );
  app.get(
    '/docs/init.js',
    () => new Response(INIT, { headers: { 'content-type': 'application/javascript; charset=utf-8' } }),
  );
  app.get('/docs/scalar.js', async () => {
    // The browser build is not among the package's exports: find it beside the package's entry.
    bundle ??= readFile(new URL('./browser/standalone.js', import.meta.resolve('@scalar/api-reference')), 'utf8').catch(
      (err) => {
        bundle = null;
        throw err;
      },
    );
    return new Response(await bundle, {
      headers: { 'content-type': 'application/javascript; charset=utf-8', 'cache-control': 'public, max-age=3600' },
    });
  });
}

const page = (path: string, summary: string, contentType: string) =>
  defineOperation({
    method: 'get',
    path,
    operationId:
      path === '/docs' ? 'getApiReference' : `get${path.replace(/\W+(\w)/g, (_, c: string) => c.toUpperCase())}`,
    tag: 'Service',
    security: [],
    summary,
    responses: { 200: { description: summary, contentType } },
    errors: [],
  });

export const apiDocsOperations = [
  defineOperation({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Service',
    security: [],
    summary: 'This OpenAPI 3.1 document',
    responses: {
      200: {
        description: 'The document, generated from the schemas the routes validate with',
        schema: z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }),
      },
    },
    errors: [],
  }),
  page('/docs', 'The API reference page', 'text/html'),
  page('/docs/init.js', "The reference page's initialiser", 'application/javascript'),
  page('/docs/scalar.js', "The reference page's renderer (Scalar API Reference)", 'application/javascript'),
];
