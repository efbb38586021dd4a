import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from 'h3';
import { loadConfig, ROLES, type Config, type Role } from './config.ts';
import { lockDataDir } from './lock-data-dir.ts';
import { createAppContext, type AppContext } from './app-context.ts';
import { createHttpApp } from './http/app.ts';
import { ensureDashboardBundle } from './http/routes/dashboard-app.ts';
import { createMetricsApp } from './http/routes/metrics.ts';
import { createHealthApp } from './http/health-app.ts';
import { nodeServerOptions } from './http/server-options.ts';
import { startWorkers } from './workers/start-workers.ts';
import { createDb, migrate } from './core/db/orm.ts';
import { seedDemoProgram } from './demo-seed.ts';
import { createEmbeddedCluster } from './embedded-first-start.ts';
import { demoPageEnabled } from './http/routes/demo-page.ts';
import { publicOrigin } from './public-origin.ts';

/**
 * Entry point: `node src/main.ts [role]` (or `ROLE=<role>`).
 * - serve (default): HTTP and workers in one process.
 * - http / worker: one side only, to scale each out on many machines (needs REDIS_URL).
 * - migrate: apply database migrations and exit.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const role = resolveRole(process.argv[2], config.ROLE);
  if ((role === 'http' || role === 'worker') && (!config.REDIS_URL || !config.DATABASE_URL)) {
    throw new Error(
      `Role "${role}" needs DATABASE_URL and REDIS_URL: the embedded database and queue only work inside one "serve" process`,
    );
  }
  // Embedded PGlite is single-process: hold DATA_DIR for our whole life (released on exit).
  const unlock =
    config.DATABASE_URL || config.DATA_DIR.startsWith('memory:')
      ? null
      : await lockDataDir(config.DATA_DIR, role, {
          onCompromised: (err) => {
            console.error(`lost the lock on ${config.DATA_DIR} (${err.message}); exiting to protect the data`);
            process.exit(1);
          },
        });
  if (role === 'migrate') {
    const db = await createDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
    const applied = await migrate(db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    await db.orm.close();
    await unlock?.();
    return;
  }
  // Where the operator finds the admin token (the first-start banner says it).
  const tokenWhere = config.ADMIN_TOKEN ? 'the ADMIN_TOKEN you set' : null;
  if (!config.DATABASE_URL) config.ADMIN_TOKEN ??= embeddedAdminToken(config);

  // Embedded mode's first start: initdb and the migrations in a child process (no lasting peak).
  const created = config.DATABASE_URL ? [] : await createEmbeddedCluster(config.DATA_DIR);
  const ctx = await createAppContext(config);
  if (created.length) ctx.log.info({ applied: created }, 'database migrations applied');
  // Build the dashboard bundle now when its sources are newer, rather than on the first page view.
  if (role !== 'worker')
    await ensureDashboardBundle(ctx).catch((err: Error) =>
      ctx.log.error({ err: err.message }, 'dashboard bundle not built; /dashboard answers 503'),
    );
  const workers = role === 'http' ? null : startWorkers(ctx);
  const server =
    role === 'worker'
      ? null
      : serve(createHttpApp(ctx), {
          port: config.PORT,
          hostname: config.HOST,
          silent: true,
          gracefulShutdown: false,
          node: nodeServerOptions(config),
        });
  if (server) {
    await server.ready();
    ctx.log.info({ url: server.url, role }, 'HTTP server listening');
  }
  const metricsServer = config.METRICS_PORT
    ? serve(createMetricsApp(ctx), {
        port: config.METRICS_PORT,
        hostname: config.HOST,
        silent: true,
        gracefulShutdown: false,
        node: nodeServerOptions(config),
      })
    : null;
  if (metricsServer) {
    await metricsServer.ready();
    ctx.log.info({ url: metricsServer.url }, 'metrics listener ready');
  }
  // Orchestrators probe workers too; off unless a port is given (a worker needs no open port).
  const health =
    role === 'worker' && config.WORKER_HEALTH_PORT !== undefined
      ? serve(createHealthApp(ctx), {
          port: config.WORKER_HEALTH_PORT,
          hostname: config.HOST,
          silent: true,
          gracefulShutdown: false,
          node: nodeServerOptions(config),
        })
      : null;
  if (health) {
    await health.ready();
    ctx.log.info({ url: health.url, role }, 'health listener on /healthz and /readyz');
  }
  if (!config.DATABASE_URL && config.DEMO_SEED)
    // The public origin, unless the port was picked at start (PORT=0): then the listener's own URL.
    await printDemo(
      ctx,
      config.PORT === 0 && server?.url ? server.url : publicOrigin(config),
      tokenWhere ?? adminTokenFileNote(config),
    );

  let stopping = false;
  let endDrain: (() => void) | null = null;
  const shutdown = async (signal: string) => {
    if (stopping) {
      // A second signal during the drain: stop draining and close now.
      endDrain?.();
      return;
    }
    stopping = true;
    // Readiness answers 503 at once; the listeners keep accepting and serving during the drain, so
    // a load balancer takes the process out of rotation before its connections are refused.
    ctx.lifecycle.draining = true;
    // Only a process with an API listener has traffic to drain (a worker just finishes its jobs).
    const drainMs = server ? (config.SHUTDOWN_DRAIN_MS ?? (config.DATABASE_URL ? 5_000 : 0)) : 0;
    const force = setTimeout(() => {
      ctx.log.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, drainMs + 30_000);
    force.unref();
    if (drainMs > 0) {
      ctx.log.info(
        { signal, drainMs },
        'draining: /readyz answers 503, requests are still served until the drain period ends',
      );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, drainMs);
        endDrain = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    ctx.log.info({ signal }, 'shutting down: no new requests; finishing in-flight requests and running jobs');
    await server?.close();
    await metricsServer?.close();
    await health?.close();
    await workers?.stop();
    await ctx.close();
    await unlock?.();
    ctx.log.info('shutdown complete');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** The role argument, else ROLE, else `serve`; both given and different is a mistake, not a choice. */
function resolveRole(arg: string | undefined, fromEnv: Role | undefined): Role {
  if (arg === undefined) return fromEnv ?? 'serve';
  if (!(ROLES as readonly string[]).includes(arg))
    throw new Error(`Unknown role "${arg}"; use one of: ${ROLES.join(', ')}`);
  if (fromEnv && fromEnv !== arg)
    throw new Error(`The role argument "${arg}" contradicts ROLE=${fromEnv}; give one of them`);
  return arg as Role;
}

/** Embedded mode without ADMIN_TOKEN: a random token kept in the data dir (the admin CLI reads it). */
function embeddedAdminToken(config: Config): string {
  // An in-memory database lives as long as this process: so does its token.
  if (config.DATA_DIR.startsWith('memory:')) return randomBytes(24).toString('base64url');
  const file = join(config.DATA_DIR, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.DATA_DIR, { recursive: true });
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/** Where the embedded server's generated admin token is: its file, or (in-memory data) the token itself. */
function adminTokenFileNote(config: Config): string {
  return config.DATA_DIR.startsWith('memory:')
    ? `this process's token (in-memory data, so it is not kept): ${config.ADMIN_TOKEN}`
    : `the token in ${join(config.DATA_DIR, 'admin-token')}`;
}

async function printDemo(ctx: AppContext, url: string, tokenWhere: string): Promise<void> {
  const demo = await seedDemoProgram(ctx.deps());
  if (!demo) return;
  const base = url.replace(/\/$/, '').replace('//0.0.0.0:', '//localhost:');
  console.log(
    [
      '',
      '  First start: created a demo program so you can call the API right away.',
      `  program id ${demo.programId}, partner code "${demo.partnerCode}"`,
      `  live key: ${demo.liveKey}`,
      `  test key: ${demo.testKey}`,
      '  (keys are shown once; create more with `npm run admin -- keys:issue <programId>`)',
      '',
      `  curl -s ${base}/api/v1/cli/status -H "Authorization: Bearer ${demo.liveKey}"`,
      `  dashboard: ${base}/dashboard (sign in with ${tokenWhere})`,
      ...(demoPageEnabled(ctx.config)
        ? [`  browser tracker demo (a partner link): ${base}/demo?program=${demo.programId}&aff=${demo.partnerCode}`]
        : []),
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
