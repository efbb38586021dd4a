import { createStripeTransfers } from './providers/stripe/transfers.ts';
import type { Logger as PinoLogger } from 'pino';
import { createEmailHasher, type EmailHasher } from './core/shared/email-hash.ts';
import { resolveEmailHashSecret, readInstanceNonce } from './core/db/service-instance.ts';
import type { Redis } from 'ioredis';
import { connectRedis } from './queue/redis-connection.ts';
import { metricsEnabled, type Config } from './config.ts';
import { parseAcceptedCurrencies } from './core/shared/currencies.ts';
import { createLogger } from './create-logger.ts';
import type { Clock, CoreDeps } from './core/deps.ts';
import { createDb, migrate, type Db } from './core/db/orm.ts';
import { registerReplicaGauges } from './metrics/replica-gauges.ts';
import { openReadReplica, type ReadRouting } from './read-routing.ts';
import { createCoreCaches } from './core/core-caches.ts';
import type { NotificationSender } from './core/notifications/deliver-notification.ts';
import type { EventPoster } from './core/outbound/deliver-event.ts';
import { createEventPoster } from './workers/post-event.ts';
import { createHmac } from 'node:crypto';
import type { EmailTransport } from './core/email/deliver-emails.ts';
import { createSmtpTransport } from './workers/smtp-transport.ts';
import { createOutboundGuard, type LookupHost } from './egress/outbound-guard.ts';
import { createGuardedDispatcher } from './egress/guarded-dispatcher.ts';
import { createGuardedFetch } from './egress/guarded-fetch.ts';
import type { SourceFetch } from './importers/reader-options.ts';
import { createBackgroundWork, type BackgroundWork } from './workers/background-work.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { createMemoryQueue } from './queue/memory-queue.ts';
import { createBullQueue, REDIS_COMMAND_TIMEOUT_MS } from './queue/bullmq-queue.ts';
import { runTrackInPlace } from './queue/track-in-place.ts';
import {
  createDiscountLookup,
  createPaidSaleLookup,
  createPaymentAliasLookup,
  createProviderAdapters,
  type ProviderAdapters,
} from './providers/registry.ts';
import { resolveSealer } from './sealing-keys.ts';
import { ensureStatementKey } from './core/ledger/statement-keys.ts';
import { createMetrics, moneyEventsOf, type Metrics } from './metrics/create-metrics.ts';
import { publicOrigin } from './public-origin.ts';

/**
 * Everything built once per process and passed down explicitly (no globals). The HTTP app and the
 * workers each take the part they use (`HttpContext`, `WorkerContext`); this satisfies both.
 */
export type AppContext = {
  config: Config;
  db: Db;
  queue: JobQueue;
  log: PinoLogger;
  clock: Clock;
  providers: ProviderAdapters;
  /** Shared Redis connection for HTTP's rate limiter; `null` in embedded mode (in-memory limits). */
  redis: Redis | null;
  notificationSender: NotificationSender;
  /** Sends outbound events to merchants' endpoints (through the URL guard, with a timeout). */
  postEvent: EventPoster;
  /** GETs an import source's API (through the URL guard, as postEvent). */
  sourceFetch: SourceFetch;
  /** Sends the email outbox (SMTP_URL); null: email off. */
  emailTransport: EmailTransport | null;
  /** This context's Prometheus registry and metrics (served at /metrics). */
  metrics: Metrics;
  /** What jobs leave running after they answered (worker-context.ts); `close` waits for it. */
  background: BackgroundWork;
  /** Random per database (`service_instance`): part of queue job ids, so a reset database never reuses one. */
  instanceNonce: string;
  /** Lead email → keyed hash (HMAC-SHA256 under EMAIL_HASH_SECRET or the database's generated key). */
  hashEmail: EmailHasher;
  /** Set once shutdown begins: /readyz answers 503 "draining" while the listener still serves. */
  lifecycle: Lifecycle;
  /** Fresh core dependencies with their own EntityManager fork. */
  deps(): CoreDeps;
  /** Reads that may go to the read replica (DATABASE_READ_URL); every read on the primary without one. */
  reads: ReadRouting;
  close(): Promise<void>;
};

export type Lifecycle = { draining: boolean };

export type ContextOverrides = {
  clock?: Clock;
  notificationSender?: NotificationSender;
  postEvent?: EventPoster;
  /** Replaces the SMTP transport (email is on when this or SMTP_URL is given). */
  emailTransport?: EmailTransport;
  /** The URL guard's resolver (default: the system's); tests make names resolve where they want. */
  lookup?: LookupHost;
  log?: PinoLogger;
  migrate?: boolean;
};

export async function createAppContext(config: Config, o: ContextOverrides = {}): Promise<AppContext> {
  const log = o.log ?? createLogger(config);
  const clock = o.clock ?? (() => new Date());
  const db = await createDb({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    poolMax: config.DB_POOL_MAX,
    preparedStatements: config.DB_PREPARED_STATEMENTS,
  });
  if (o.migrate !== false) {
    const applied = await migrate(db);
    if (applied.length) log.info({ applied }, 'database migrations applied');
  }
  const instanceNonce = await readInstanceNonce(db);
  const emailKey = await resolveEmailHashSecret(db, config.EMAIL_HASH_SECRET);
  if (emailKey.source === 'database' && config.DATABASE_URL) {
    log.warn(
      'EMAIL_HASH_SECRET is not set: lead emails are hashed with a key kept in the database itself; set it to keep the key apart from the hashes',
    );
  }
  const sentinels = { sentinels: config.REDIS_SENTINELS, sentinelName: config.REDIS_SENTINEL_NAME };
  // Embedded, the in-process queue already runs every job where it was added.
  let queue = config.REDIS_URL
    ? createBullQueue({ redisUrl: config.REDIS_URL, ...sentinels, prefix: config.QUEUE_PREFIX, log })
    : createMemoryQueue();
  if (queue.kind === 'bullmq' && config.API_CALLS_IN_PLACE) queue = runTrackInPlace(queue, log);
  const redis = config.REDIS_URL
    ? connectRedis(
        { url: config.REDIS_URL, ...sentinels },
        {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        },
      )
    : null;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis (rate limiter) connection error'));
  log.info(
    { database: db.kind, queue: queue.kind, dataDir: db.kind === 'pglite' ? config.DATA_DIR : undefined },
    db.kind === 'pglite'
      ? 'embedded mode: PGlite database and in-process queue'
      : 'production mode: PostgreSQL and BullMQ/Redis',
  );

  const notificationSender: NotificationSender = o.notificationSender ?? {
    // In-app notifications are the stored rows themselves; delivery here means "published".
    async send(n) {
      log.info(
        { notificationId: n.id, kind: n.kind, programId: n.program, partnerId: n.partnerId },
        'notification delivered',
      );
    },
  };
  const metrics = createMetrics({ enabled: metricsEnabled(config) });
  const events = moneyEventsOf(metrics);
  const caches = createCoreCaches(clock);
  const hashEmail = createEmailHasher(emailKey.secret);
  const sealer = resolveSealer(config);
  const currencies = parseAcceptedCurrencies(config.CURRENCIES);
  if (!sealer.canSeal)
    log.info(
      'DATA_ENCRYPTION_KEYS is not set: provider API keys cannot be stored or used (see docs/deployment.md, Sealed secrets)',
    );
  if (await ensureStatementKey(db.em.fork(), sealer, clock()))
    log.debug('statement checkpoints are signed (docs/statement-verification.md)');
  const lookupDiscountCodes = createDiscountLookup({ lemonsqueezyApiBase: config.LEMONSQUEEZY_API_BASE });
  const { sendTransfer, listTransfers } = createStripeTransfers({ apiBase: config.STRIPE_API_BASE });
  const lookupPaymentAlias = createPaymentAliasLookup({ stripeApiBase: config.STRIPE_API_BASE });
  const lookupPaidSale = createPaidSaleLookup({ stripeApiBase: config.STRIPE_API_BASE });
  const guard = createOutboundGuard({ allow: config.OUTBOUND_ALLOW_HOSTS, lookup: o.lookup, log });
  const egress = createGuardedDispatcher(guard);
  const smtp = config.SMTP_URL ? createSmtpTransport(config.SMTP_URL, config.SMTP_FROM) : null;
  const emailTransport = o.emailTransport ?? smtp;
  // Unsubscribe links are signed with a key derived from the email-hash secret (never stored apart).
  const mail = emailTransport
    ? {
        // Read at each use: the origin is the configuration's (publicOrigin), whenever it is set.
        get baseUrl() {
          return publicOrigin(config);
        },
        linkKey: createHmac('sha256', emailKey.secret).update('email-links').digest(),
      }
    : undefined;
  const deps = (): CoreDeps => ({
    em: db.em.fork(),
    clock,
    log,
    events,
    caches,
    hashEmail,
    sealer,
    currencies,
    lookupDiscountCodes,
    lookupPaymentAlias,
    lookupPaidSale,
    sendTransfer,
    listTransfers,
    checkOutboundUrl: guard.checkUrl,
    mail,
  });
  const reads = await openReadReplica(config, db, deps, log);
  if (reads.replica) registerReplicaGauges(metrics.registry, reads.replica);
  const ctx: AppContext = {
    config,
    db,
    queue,
    log,
    clock,
    notificationSender,
    postEvent: o.postEvent ?? createEventPoster(egress),
    sourceFetch: createGuardedFetch(egress),
    emailTransport,
    metrics,
    background: createBackgroundWork(),
    redis,
    instanceNonce,
    lifecycle: { draining: false },
    hashEmail,
    providers: createProviderAdapters(),
    deps,
    reads,
    async close() {
      await ctx.background.settled();
      await queue.close();
      await egress.close();
      smtp?.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await reads.close();
      await db.orm.close();
    },
  };
  return ctx;
}
