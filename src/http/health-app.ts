import { H3 } from 'h3';
import type { HttpContext } from './http-context.ts';
import { healthz, readyz } from './routes/health.ts';
import { boundDatabaseCalls } from './bound-database-calls.ts';

/** The worker role's listener (WORKER_HEALTH_PORT): the same /healthz and /readyz as the API, nothing else. */
export function createHealthApp(ctx: HttpContext): H3 {
  const app = new H3();
  // The readiness check's own query gives its connection back after the bound, not the hang's end.
  boundDatabaseCalls(app, ctx.config.DB_QUERY_TIMEOUT_MS);
  app.get('/healthz', healthz);
  app.get('/readyz', readyz(ctx));
  return app;
}
