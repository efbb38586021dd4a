import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { serve } from 'h3';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig, type Config } from '../../src/config.ts';
import { createAppContext, type AppContext } from '../../src/app-context.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { startWorkers } from '../../src/workers/start-workers.ts';
import type { INotification } from '../../src/core/entities/notification.ts';
import type { NotificationSender } from '../../src/core/notifications/deliver-notification.ts';
import type { LookupHost } from '../../src/egress/outbound-guard.ts';
import { Program } from '../../src/core/entities/program.ts';
import { verifyLedger } from '../../src/core/reporting/verify-ledger.ts';
import { assertDocumentedResponse } from './contract.ts';

/**
 * A real service for one test file: its own database (a fresh PostgreSQL database when
 * DATABASE_URL is set, else an in-memory PGlite) and its own queue (a unique BullMQ prefix when
 * REDIS_URL is set, else the in-process queue). The clock is injectable; notifications are recorded.
 */
export type Harness = {
  ctx: AppContext;
  mode: 'production' | 'embedded';
  /** Moves the injected clock. */
  clock: { now: Date; advanceDays(days: number): void };
  sent: INotification[];
  /** Log lines at or above the harness's LOG_LEVEL (default silent: none). */
  logs: Array<Record<string, unknown>>;
  request(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: string },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  admin(method: string, path: string, body?: unknown): Promise<any>;
  /** Starts a real HTTP server on a random port; returns its base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
};

export const ADMIN_TOKEN = 'test-admin-token-0123456789-abcdef';

/**
 * `notificationSender` replaces the recording one (then `sent` stays empty); `lookup` replaces the
 * system resolver of the outbound URL guard (names resolve where the test says); `databaseUrl`
 * the address the service reaches the database the harness created at (a test puts a proxy in front).
 */
export type HarnessOptions = {
  notificationSender?: NotificationSender;
  lookup?: LookupHost;
  databaseUrl?: (created: string) => string;
  /** The server the database is created on (default: DATABASE_URL); `readUrl`: its DATABASE_READ_URL. */
  server?: string;
  readUrl?: (created: string) => string;
  /**
   * Off only for a file that corrupts ledger rows on purpose: otherwise `close()` runs ledger:verify
   * on every program in the database and fails the file on the first difference.
   */
  verifyLedgerOnClose?: boolean;
};

export async function createHarness(env: Record<string, string> = {}, opts: HarnessOptions = {}): Promise<Harness> {
  const id = randomBytes(5).toString('hex');
  const baseUrl = opts.server ?? process.env.DATABASE_URL;
  let dbName: string | null = null;
  let databaseUrl: string | undefined;
  let readUrl = '';
  if (baseUrl) {
    dbName = `t_${id}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const u = new URL(baseUrl);
    u.pathname = `/${dbName}`;
    databaseUrl = opts.databaseUrl ? opts.databaseUrl(u.toString()) : u.toString();
    readUrl = opts.readUrl?.(u.toString()) ?? '';
  }
  const config: Config = loadConfig({
    DATABASE_URL: databaseUrl ?? '',
    DATABASE_READ_URL: readUrl,
    REDIS_URL: process.env.REDIS_URL ?? '',
    DATA_DIR: 'memory://',
    ADMIN_TOKEN,
    QUEUE_PREFIX: `t${id}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DB_POOL_MAX: '6',
    WORKER_CONCURRENCY: '8',
    SWEEP_INTERVAL_MS: '60000',
    WEBHOOK_RETRY_BASE_MS: '100',
    // In-process requests have no client address (all one client): limits out of reach unless a test sets them.
    CLICK_LIMIT_PER_MINUTE: '100000000',
    BROWSER_LEAD_LIMIT_PER_MINUTE: '100000000',
    WEBHOOK_LIMIT_PER_MINUTE: '100000000',
    STATUS_LIMIT_PER_MINUTE: '100000000',
    API_KEY_FAILURES_PER_MINUTE: '100000000',
    // The browser suites load /demo in both modes (production mode turns it off by default; '' = the default).
    DEMO_PAGE: 'true',
    ...env,
  });
  const clock = {
    now: new Date(),
    advanceDays(days: number) {
      this.now = new Date(this.now.getTime() + days * 86_400_000);
    },
  };
  const sent: INotification[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const ctx = await createAppContext(config, {
    clock: () => clock.now,
    // Lines are kept for assertions (`logs`) and echoed when TEST_LOG_LEVEL asks for them.
    log: pino(
      { level: config.LOG_LEVEL },
      {
        write(line: string) {
          logs.push(JSON.parse(line));
          if (process.env.TEST_LOG_LEVEL) process.stdout.write(line);
        },
      },
    ),
    notificationSender: opts.notificationSender ?? {
      async send(n) {
        sent.push(n);
      },
    },
    lookup: opts.lookup,
  });
  const workers = startWorkers(ctx);
  const app = createHttpApp(ctx);
  let server: ReturnType<typeof serve> | null = null;
  const contractViolations: string[] = [];

  const request: Harness['request'] = async (path, init = {}) => {
    const headers: Record<string, string> = {
      ...(init.body !== undefined || init.raw !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    };
    const res = await app.request(path, {
      method: init.method ?? (init.body !== undefined || init.raw !== undefined ? 'POST' : 'GET'),
      headers,
      body: init.raw ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    const out = { status: res.status, body, headers: res.headers };
    assertDocumentedResponse(
      init.method ?? (init.body !== undefined || init.raw !== undefined ? 'POST' : 'GET'),
      path,
      out,
    );
    return out;
  };
  return {
    ctx,
    clock,
    sent,
    logs,
    request,
    mode: baseUrl ? 'production' : 'embedded',
    async admin(method, path, body) {
      const r = await request(`/api/v1/admin${path}`, {
        method,
        body,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      if (r.status >= 300) throw new Error(`admin ${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
    async listen() {
      // Responses to real clients (browsers, CLIs, the server client) get the same contract check;
      // what the document does not describe fails the file when the harness closes.
      const checked = {
        config: {},
        fetch: async (req: Request) => {
          const res = await app.fetch(req);
          const url = new URL(req.url);
          let body: unknown = null;
          if ((res.headers.get('content-type') ?? '').includes('json')) {
            const text = await res.clone().text();
            try {
              body = text ? JSON.parse(text) : null;
            } catch {
              body = text;
            }
          }
          try {
            assertDocumentedResponse(req.method, `${url.pathname}${url.search}`, {
              status: res.status,
              headers: res.headers,
              body,
            });
          } catch (err) {
            contractViolations.push((err as Error).message);
          }
          return res;
        },
      } as unknown as typeof app;
      server = serve(checked, { port: 0, hostname: '127.0.0.1', silent: true, gracefulShutdown: false });
      await server.ready();
      const url = (server.url as string).replace(/\/$/, '');
      // The listener is the service's public origin (as PUBLIC_BASE_URL names it in production):
      // the links it writes (invites, emails, the demo page) then lead back to it.
      ctx.config.PUBLIC_BASE_URL ??= url;
      return url;
    },
    async close() {
      // Checked before shutting down, reported after: a difference still stops and drops everything.
      const unclean =
        opts.verifyLedgerOnClose === false
          ? null
          : await verifyEveryLedger(ctx).then(
              () => null,
              (err: Error) => err,
            );
      await server?.close(true);
      await workers.stop();
      await ctx.close();
      if (dbName && baseUrl) {
        const admin = new pg.Client({ connectionString: baseUrl });
        await admin.connect();
        await admin.query(`drop database if exists ${dbName} with (force)`);
        await admin.end();
      }
      if (unclean) throw unclean;
      if (contractViolations.length)
        throw new Error(
          `responses the OpenAPI document does not describe:\n${[...new Set(contractViolations)].join('\n')}`,
        );
    },
  };
}

/**
 * Every program's ledger rebuilds from its sales, refunds, disputes and payouts to the stored one
 * (ledger:verify), whatever the file's tests did to it; throws naming the first differences.
 */
async function verifyEveryLedger(ctx: AppContext): Promise<void> {
  const programs = await ctx.deps().em.find(Program, {}, { fields: ['id'], orderBy: { id: 'asc' } });
  const unclean: string[] = [];
  for (const { id } of programs) {
    const report = await verifyLedger(ctx.deps(), id);
    if (!report.clean) unclean.push(`program ${id}: ${JSON.stringify(report.firstDifferences.slice(0, 3))}`);
  }
  if (unclean.length) throw new Error(`ledger:verify found differences:\n${unclean.join('\n')}`);
}

/**
 * One harness for the enclosing file or `describe`: started in `beforeAll`, closed in `afterAll`.
 * The returned object stands for it (use it inside tests and later hooks, not at collection time),
 * so a test file needs no `let h` and no hook pair of its own.
 */
export function useHarness(env: Record<string, string> = {}, opts: HarnessOptions = {}): Harness {
  let live: Harness | undefined;
  beforeAll(async () => {
    live = await createHarness(env, opts);
  });
  afterAll(async () => {
    await live?.close();
  });
  const current = (): Harness => {
    if (!live) throw new Error('the harness starts in beforeAll: use it inside a test or a later hook');
    return live;
  };
  return {
    get ctx() {
      return current().ctx;
    },
    get mode() {
      return current().mode;
    },
    get clock() {
      return current().clock;
    },
    get sent() {
      return current().sent;
    },
    get logs() {
      return current().logs;
    },
    request: (path, init) => current().request(path, init),
    admin: (method, path, body) => current().admin(method, path, body),
    listen: () => current().listen(),
    close: () => current().close(),
  };
}

export { bearer, clickAndLead, createProgramFixture, type Fixture } from './program-fixture.ts';
