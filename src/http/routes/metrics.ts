import { H3, onError, type H3Event } from 'h3';
import type { HttpContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { constantTimeEqual } from '../../core/shared/crypto.ts';
import { refreshGauges } from '../../metrics/refresh-gauges.ts';
import { route } from '../route.ts';
import { errorHook } from '../error-table.ts';
import { defineOperation } from '../openapi/operation.ts';

/**
 * GET /metrics: the Prometheus exposition of this process, guarded by its own bearer token
 * (METRICS_TOKEN, never an API or admin key: a scraper's credential should read metrics and
 * nothing else). Unset = disabled. The queue, inbox and outbox gauges are read now.
 */
export function metricsRoute(ctx: HttpContext) {
  return route(async (event: H3Event) => {
    const token = ctx.config.METRICS_TOKEN;
    const given = /^Bearer (.+)$/.exec(event.req.headers.get('authorization') ?? '')?.[1];
    if (!token || !given || !constantTimeEqual(token, given)) {
      throw new AppError('unauthorized', token ? 'Invalid metrics token' : 'Metrics are disabled; set METRICS_TOKEN');
    }
    await refreshGauges(ctx);
    return new Response(await ctx.metrics.registry.metrics(), {
      headers: { 'content-type': ctx.metrics.registry.contentType },
    });
  });
}

/** The listener of METRICS_PORT: /metrics alone, for the worker role (which serves no API). */
export function createMetricsApp(ctx: HttpContext): H3 {
  const app = new H3();
  // The route's errors in the API's envelope; other paths keep h3's own 404.
  app.get('/metrics', metricsRoute(ctx), { middleware: [onError(errorHook(ctx))] });
  return app;
}

export const metricsOperation = defineOperation({
  method: 'get',
  path: '/metrics',
  operationId: 'getMetrics',
  tag: 'Service',
  security: ['metricsToken'],
  summary: 'Prometheus metrics of this process',
  responses: { 200: { description: 'Prometheus text format 0.0.4', contentType: 'text/plain' } },
  errors: ['unauthorized'],
});
