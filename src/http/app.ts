import { writeKeys } from './write-keys.ts';
import { randomUUID } from 'node:crypto';
import { H3 } from 'h3';
import type { HttpContext, RouteContext } from './http-context.ts';
import { createKeyCache } from './key-cache.ts';
import { createRateLimiter } from './rate-limiter.ts';
import { createReportGate } from './report-gate.ts';
import { errorHook } from './error-table.ts';
import { boundDatabaseCalls } from './bound-database-calls.ts';
import { trackingCors } from './cors.ts';
import { trackSaleRoute } from './routes/track-sale.ts';
import { trackRefundRoute } from './routes/track-refund.ts';
import { trackLeadRoute } from './routes/track-lead.ts';
import { trackBrowserLeadRoute } from './routes/track-browser-lead.ts';
import { trackClickRoute } from './routes/track-click.ts';
import { trackTestRoute } from './routes/track-test.ts';
import { trackCheckoutRoute } from './routes/track-checkout.ts';
import { cliStatusRoute } from './routes/cli-status.ts';
import { webhookRoute } from './routes/webhook.ts';
import { registerAdminRoutes } from './routes/admin.ts';
import { registerAdminDashboardRoutes } from './routes/admin-dashboard.ts';
import { registerSessionRoutes } from './routes/sessions.ts';
import { registerStaffSessionRoutes } from './routes/staff-sessions.ts';
import { registerPartnerRoutes } from './routes/partner.ts';
import { registerPartnerEmailPrefsRoutes } from './routes/partner-email-prefs.ts';
import { registerApplicationRoutes } from './routes/applications.ts';
import { registerDashboardApp } from './routes/dashboard-app.ts';
import { healthz, readyz } from './routes/health.ts';
import { trackerScriptRoute } from './routes/tracker-script.ts';
import { STATEMENT_KEYS_PATH, statementKeysRoute } from './routes/statement-keys.ts';
import { demoPageRoute } from './routes/demo-page.ts';
import { metricsRoute } from './routes/metrics.ts';
import { registerApiDocs } from './routes/api-docs.ts';
import { registerFavicon } from './routes/favicon.ts';
import { mcpRoute, mcpStreamRoute } from './routes/mcp.ts';
import { OPERATIONS } from './openapi/operations.ts';

/** The HTTP application: every route, one error hook, a request id and an access log. */
export function createHttpApp(http: HttpContext): H3 {
  const ctx: RouteContext = {
    ...http,
    rateLimiter: createRateLimiter(http.redis, http.config.QUEUE_PREFIX, http.log),
    keyCache: createKeyCache(5_000),
    reports: createReportGate(),
  };
  const app = new H3({
    // Errors are rendered, and the unexpected ones logged, by the one onError hook: h3 prints nothing.
    silent: true,
    onError: errorHook(ctx),
    onRequest(event) {
      const given = event.req.headers.get('x-request-id');
      event.context.requestId = given && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
      event.context.startedAt = performance.now();
    },
    onResponse(response, event) {
      response.headers.set('x-request-id', event.context.requestId);
      // Read-your-writes: what this request changed is read from the primary until the replica has it.
      const written = writeKeys(event, response.status);
      if (written.length) ctx.reads.noteWrite(written);
      const elapsed = performance.now() - event.context.startedAt;
      // The route pattern, never the raw path: ids in paths would make a series per request.
      const pattern = event.context.matchedRoute?.route ?? 'unmatched';
      ctx.metrics.httpDuration.observe(
        { method: event.req.method, route: pattern, status: response.status },
        elapsed / 1000,
      );
      const ms = Math.round(elapsed * 10) / 10;
      const entry = {
        reqId: event.context.requestId,
        method: event.req.method,
        path: event.url.pathname,
        route: pattern,
        status: response.status,
        ms,
        programId: event.context.apiKey?.programId,
      };
      if (response.status >= 500) ctx.log.warn(entry, 'request failed');
      // Probes come every few seconds from the orchestrator: at debug, unless they fail.
      else if (pattern === '/healthz' || pattern === '/readyz') ctx.log.debug(entry, 'request');
      else ctx.log.info(entry, 'request');
    },
  });

  boundDatabaseCalls(app, ctx.config.DB_QUERY_TIMEOUT_MS);
  app.get('/healthz', healthz);
  app.get('/readyz', readyz(ctx));
  app.get('/tracker.js', trackerScriptRoute(ctx));
  app.get(STATEMENT_KEYS_PATH, statementKeysRoute(ctx));
  app.get('/demo', demoPageRoute(ctx));
  app.get('/metrics', metricsRoute(ctx));
  const tracking = { middleware: [trackingCors] };
  app.post('/api/v1/track/click', trackClickRoute(ctx), tracking);
  app.post('/api/v1/track/lead', trackLeadRoute(ctx), tracking);
  app.post('/api/v1/track/browser-lead', trackBrowserLeadRoute(ctx), tracking);
  app.post('/api/v1/track/sale', trackSaleRoute(ctx), tracking);
  app.post('/api/v1/track/refund', trackRefundRoute(ctx), tracking);
  app.post('/api/v1/track/test', trackTestRoute(ctx), tracking);
  app.post('/api/v1/track/checkout', trackCheckoutRoute(ctx), tracking);
  app.options('/api/v1/track/**', () => new Response(null, { status: 204 }), tracking);
  app.get('/api/v1/cli/status', cliStatusRoute(ctx));
  app.post('/api/v1/webhooks/:provider/:programId', webhookRoute(ctx));
  app.post('/mcp', mcpRoute(ctx));
  app.get('/mcp', mcpStreamRoute());
  registerAdminDashboardRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  registerSessionRoutes(app, ctx);
  registerStaffSessionRoutes(app, ctx);
  registerPartnerRoutes(app, ctx);
  registerPartnerEmailPrefsRoutes(app, ctx);
  registerApplicationRoutes(app, ctx);
  registerDashboardApp(app, ctx);
  registerApiDocs(app, ctx, OPERATIONS);
  registerFavicon(app);
  return app;
}
