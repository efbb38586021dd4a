import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from 'h3';
import { loadConfig, type Config } from './config.ts';
import { createAppContext, type AppContext } from './app-context.ts';
import { createHttpApp } from './http/app.ts';
import { startWorkers } from './workers/processors.ts';
import { createDb, migrate } from './core/orm.ts';
import { seedDemoProgram } from './demo-seed.ts';

const ROLES = ['serve', 'http', 'worker', 'migrate'] as const;
type Role = (typeof ROLES)[number];

/**
 * Entry point: `node src/main.ts <role>`.
 * - serve (default): HTTP and workers in one process.
 * - http / worker: one side only, to scale each out on many machines (needs REDIS_URL).
 * - migrate: apply database migrations and exit.
 */
async function main(): Promise<void> {
  const role = (process.argv[2] ?? process.env.ROLE ?? 'serve') as Role;
  if (!ROLES.includes(role)) throw new Error(`Unknown role "${role}"; use one of: ${ROLES.join(', ')}`);
  const config = loadConfig();
  if (role === 'migrate') {
    const db = await createDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
    const applied = await migrate(db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    await db.orm.close();
    return;
  }
  if (role !== 'serve' && !config.REDIS_URL) throw new Error(`Role "${role}" needs REDIS_URL (and DATABASE_URL): the embedded queue only works inside one "serve" process`);
  if (!config.DATABASE_URL) config.ADMIN_TOKEN ??= embeddedAdminToken(config);

  const ctx = await createAppContext(config);
  const workers = role === 'http' ? null : startWorkers(ctx);
  const server = role === 'worker' ? null : serve(createHttpApp(ctx), { port: config.PORT, hostname: config.HOST, silent: true, gracefulShutdown: false });
  if (server) {
    await server.ready();
    ctx.log.info({ url: server.url, role }, 'HTTP server listening');
  }
  if (!config.DATABASE_URL && config.DEMO_SEED) await printDemo(ctx, server?.url ?? `http://localhost:${config.PORT}/`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info({ signal }, 'shutting down: no new requests; finishing in-flight requests and running jobs');
    const force = setTimeout(() => { ctx.log.error('graceful shutdown timed out; exiting'); process.exit(1); }, 30_000);
    force.unref();
    await server?.close();
    await workers?.stop();
    await ctx.close();
    ctx.log.info('shutdown complete');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Embedded mode without ADMIN_TOKEN: a random token kept in the data dir (the admin CLI reads it). */
function embeddedAdminToken(config: Config): string {
  const file = join(config.DATA_DIR, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.DATA_DIR, { recursive: true });
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

async function printDemo(ctx: AppContext, url: string): Promise<void> {
  const demo = await seedDemoProgram(ctx.deps());
  if (!demo) return;
  const base = url.replace(/\/$/, '').replace('//0.0.0.0:', '//localhost:');
  console.log([
    '',
    '  First start: created a demo program so you can call the API right away.',
    `  program id ${demo.programId}, partner code "${demo.partnerCode}"`,
    `  live key: ${demo.liveKey}`,
    `  test key: ${demo.testKey}`,
    '  (keys are shown once; create more with `npm run admin -- keys:issue <programId>`)',
    '',
    `  curl -s ${base}/api/v1/cli/status -H "Authorization: Bearer ${demo.liveKey}"`,
    `  browser tracker demo (a partner link): ${base}/demo?program=${demo.programId}&aff=${demo.partnerCode}`,
    '',
  ].join('\n'));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
