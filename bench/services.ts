/** The service under load: its environment and processes for the chosen topology. */
import { randomBytes } from 'node:crypto';
import { startService, type ServiceProcess } from '../test/helpers/service-process.ts';
import { CALLGRIND_DIR, CALLGRIND_NODE_ARGS, callgrindWrapper } from './callgrind.ts';
import type { TempDatabase } from '../test/helpers/temp-database.ts';
import { SHARED_REDIS_URL } from '../test/helpers/throwaway-redis.ts';
import {
  ADMIN_TOKEN,
  CASES,
  METRICS_OFF,
  PASS_THROUGH,
  SERVICE_DIR,
  SERVICE_NODE_OPTIONS,
  TOPOLOGY,
  type Target,
} from './config.ts';

export type Services = {
  env: Record<string, string>;
  svc: Target;
  noMetrics: Target | null;
};

/**
 * Starts the service (`serve`; `split`: one `http` and one `worker` process, the scale-out path;
 * `http-only`: the `http` process alone, what acknowledging webhooks costs without processing them)
 * and, for the metrics A/B, the same service with collection off on its own queues and the same
 * database. Every process started (also before a failure) is added to `processes`, for the caller to stop.
 */
export async function startServices(db: TempDatabase, prefix: string, processes: ServiceProcess[]): Promise<Services> {
  const start = (...[role, env, o]: Parameters<typeof startService>) =>
    startService(role, env, {
      ...o,
      dir: SERVICE_DIR,
      ...(CALLGRIND_DIR
        ? { wrapper: callgrindWrapper(), nodeArgs: CALLGRIND_NODE_ARGS, readyTimeoutMs: 1_200_000 }
        : {}),
    });
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    REDIS_URL: SHARED_REDIS_URL,
    ADMIN_TOKEN,
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    DEMO_SEED: 'false',
    // One load generator is one client: the per-client limits stay on (their cost is measured)
    // with budgets it cannot reach.
    CLICK_LIMIT_PER_MINUTE: '100000000',
    BROWSER_LEAD_LIMIT_PER_MINUTE: '100000000',
    WEBHOOK_LIMIT_PER_MINUTE: '100000000',
    STATUS_LIMIT_PER_MINUTE: '100000000',
    // Collected as in a deployment that scrapes them (the default without a token is off).
    METRICS_TOKEN: `bench-metrics-${randomBytes(8).toString('hex')}`,
    ...(METRICS_OFF ? { METRICS_ENABLED: 'false' } : {}),
  };
  for (const k of PASS_THROUGH) if (process.env[k]) env[k] = process.env[k] as string;
  // The V8 options of the image and `npm start` (Dockerfile); BENCH_NODE_OPTIONS adds to them,
  // e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the service.
  env.NODE_OPTIONS = [SERVICE_NODE_OPTIONS, process.env.BENCH_NODE_OPTIONS].filter(Boolean).join(' ');
  const startAll = async (e: Record<string, string>, role: 'serve' | 'http'): Promise<Target> => {
    const started =
      TOPOLOGY === 'split'
        ? [await start('http', e), await start('worker', e, { workerReadyAfterMs: 1_500 })]
        : [await start(role, e)];
    processes.push(...started);
    return { url: started[0]!.url, pids: started.map((p) => p.pid) };
  };
  const svc = await startAll(env, TOPOLOGY === 'http-only' ? 'http' : 'serve');
  console.log(
    `service (${TOPOLOGY}) pids ${svc.pids.join(', ')} at ${svc.url} (${Object.entries(env)
      .filter(([k]) => PASS_THROUGH.includes(k))
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}; metrics ${METRICS_OFF ? 'off' : 'on'})${SERVICE_DIR ? ` from ${SERVICE_DIR}` : ''}`,
  );
  let noMetrics: Target | null = null;
  if (CASES.includes('sale-nometrics') && !METRICS_OFF) {
    noMetrics = await startAll({ ...env, QUEUE_PREFIX: `${prefix}nm`, METRICS_ENABLED: 'false' }, 'serve');
    console.log(`service with METRICS_ENABLED=false pids ${noMetrics.pids.join(', ')} at ${noMetrics.url}`);
  }
  return { env, svc, noMetrics };
}
