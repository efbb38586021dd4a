import { z } from 'zod';
import {
  allowHosts,
  bool,
  currencyList,
  originList,
  perMinute,
  proxyHops,
  sealingKeys,
  sentinelList,
} from './config-values.ts';

export const ROLES = ['serve', 'http', 'worker', 'migrate'] as const;
export type Role = (typeof ROLES)[number];

/** Environment variables, read once at start. A bad value stops the process with a clear message. */
export const configSchema = z
  .object({
    /** Process role when `node src/main.ts` gets no role argument (`npm start`). */
    ROLE: z.enum(ROLES, { error: `ROLE must be one of: ${ROLES.join(', ')}` }).optional(),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    /** PostgreSQL URL; unset = embedded PGlite under DATA_DIR. */
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    /**
     * A streaming read replica of DATABASE_URL (production mode only): dashboard lists and series,
     * CSV exports, statements and the status route read there while it is current (read-routing.ts).
     */
    DATABASE_READ_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    /** Past this lag (or not answering) the replica serves no read: they go to the primary. */
    DATABASE_READ_MAX_LAG_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
    /** Redis URL; unset = in-process queue. */
    REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
    /**
     * Redis Sentinel: `host:port` of each sentinel, comma-separated; the primary is the one they
     * name for REDIS_SENTINEL_NAME, followed through failovers. REDIS_URL still selects production
     * mode and gives the password, database and TLS; its host is not used.
     */
    REDIS_SENTINELS: sentinelList,
    REDIS_SENTINEL_NAME: z.string().min(1).default('mymaster'),
    DATA_DIR: z.string().min(1).default('./.data'),
    /** Bearer token of the admin API; unset = admin API disabled (the CLI still works). */
    ADMIN_TOKEN: z.string().min(32, 'ADMIN_TOKEN must be at least 32 characters').optional(),
    /**
     * Key of the lead email hashes (HMAC-SHA256); unset = a random key generated on first start and
     * kept in the database. Changing it makes new hashes differ from stored ones.
     */
    EMAIL_HASH_SECRET: z.string().min(32, 'EMAIL_HASH_SECRET must be at least 32 characters').optional(),
    /**
     * Keys of the sealed secrets (sealed-secrets.ts): `keyid:base64-of-32-bytes`, comma-separated;
     * the first seals, all open. Unset: embedded mode generates DATA_DIR/data-key, production mode
     * refuses to store a sealed secret.
     */
    DATA_ENCRYPTION_KEYS: sealingKeys.optional(),
    /** Lemon Squeezy's API (discount redemptions of an order); a test points it at a local server. */
    LEMONSQUEEZY_API_BASE: z.url({ protocol: /^https?$/ }).default('https://api.lemonsqueezy.com'),
    /** Stripe's API (Connect transfers of payout runs, basil invoices' PaymentIntents); a test points it at a local server. */
    STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).default('https://api.stripe.com'),
    /** Bearer token of GET /metrics (Prometheus); unset = metrics endpoint disabled. */
    METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
    /** Also serve /metrics alone on this port (the worker role has no other listener). */
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    /**
     * Collect the per-request and per-job metrics (counters, histograms, process metrics). Unset =
     * on when METRICS_TOKEN is set (someone can scrape them), off otherwise; `false` with a token
     * leaves only the scrape-time gauges (queue, inbox and outbox backlogs) on /metrics.
     */
    METRICS_ENABLED: bool.optional(),
    /** Key prefix in Redis; `{name}` (a hash tag) keeps each queue's keys in one slot of a Redis Cluster. */
    QUEUE_PREFIX: z
      .string()
      .regex(
        /^([a-zA-Z0-9_-]+|\{[a-zA-Z0-9_-]+\})$/,
        'QUEUE_PREFIX must be letters, digits, _ or -, optionally in {braces} (a Redis Cluster hash tag)',
      )
      .default('tracker'),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /**
     * A process that also runs workers (`serve`) runs the jobs of the API calls it receives itself,
     * up to WORKER_CONCURRENCY at a time, instead of a round trip through Redis; a job that fails
     * there is retried through the queue. `false` sends every API call through the queue.
     */
    API_CALLS_IN_PLACE: bool.default(true),
    DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(20),
    /**
     * The hot statements (sale, refund, ledger, lookups) as named prepared statements on each
     * PostgreSQL connection. `false` behind a pooler that cannot keep them (PgBouncer before 1.21
     * in transaction mode).
     */
    DB_PREPARED_STATEMENTS: bool.default(true),
    /**
     * How long a request path waits for a PostgreSQL pool connection, and for each statement (one
     * given up on is cancelled on the server), before it answers a retryable 503: a hung database
     * holds no request longer. Workers, migrations, export downloads and rule previews are
     * not bound by it. 0 = off.
     */
    DB_QUERY_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(600_000)
      .refine((v) => v === 0 || v >= 100, 'DB_QUERY_TIMEOUT_MS must be 0 (off) or at least 100')
      .default(5_000),
    /** How long an API call waits for its job's result before answering a retryable 503. */
    JOB_WAIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /**
     * Time limit of a rules preview, a rollup check or a partner statement (the wait for its turn
     * included): past it the call answers 503 and the report stops at its next step.
     */
    REPORT_TIMEOUT_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
    /** Time limit of a CSV export: past it the download is cut off (incomplete) and the slot freed. */
    EXPORT_TIMEOUT_MS: z.coerce.number().int().min(50).max(86_400_000).default(900_000),
    /** First retry delay of a webhook job (refund before sale); doubles up to WEBHOOK_ATTEMPTS. */
    WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).default(2_000),
    WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(10),
    /** Attempts of a notification job, and its first retry delay (doubles on each further attempt). */
    NOTIFY_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
    NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(10).default(1_000),
    /** Attempts of an outbound event delivery and its first retry delay (doubles each time): 12 × 30 s ≈ 17 h. */
    EVENT_ATTEMPTS: z.coerce.number().int().min(1).max(30).default(12),
    EVENT_RETRY_BASE_MS: z.coerce.number().int().min(10).default(30_000),
    /** How long one delivery waits for the merchant's endpoint to answer. */
    EVENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Consecutive failed attempts after which an endpoint is disabled (and the advertiser notified). */
    EVENT_DISABLE_AFTER_FAILURES: z.coerce.number().int().min(1).max(10_000).default(50),
    /**
     * Comma-separated host names, IP addresses and CIDR ranges outbound event endpoints may reach
     * although they are not public (a receiver on this machine or network: development, tests),
     * and the only hosts a plain `http://` endpoint may name. Empty: public `https://` only.
     */
    OUTBOUND_ALLOW_HOSTS: allowHosts,
    /**
     * Days a webhook's raw payload keeps the buyer's personal data; after that the payload sweeper
     * removes it (the normalised jobs, which replay runs, stay).
     */
    WEBHOOK_PAYLOAD_RETENTION_DAYS: z.coerce.number().min(0).max(3650).default(30),
    /**
     * Days a provider refund or dispute whose sale has not arrived waits for it (parked); after
     * that it is listed as `unmatched` (`GET /admin/programs/:id/parked-refunds?status=unmatched`).
     */
    PARKED_REFUND_DAYS: z.coerce.number().min(0).max(3650).default(30),
    /** Interval of the sweepers (inbox, notification outbox, hold-period approvals, payload retention, parked refunds). */
    SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).default(30_000),
    /**
     * How often the partners' statement heads are signed on schedule (besides at every payout):
     * the checkpoint sweep signs every partner whose ledger moved since its previous run
     * (docs/statement-verification.md).
     */
    STATEMENT_CHECKPOINT_INTERVAL_MS: z.coerce.number().int().min(0).default(3_600_000),
    BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
    /**
     * A request must have arrived whole within REQUEST_TIMEOUT_MS and its headers within
     * HEADERS_TIMEOUT_MS of the connection's first byte (Node's requestTimeout/headersTimeout); a
     * slower client gets 408 and its connection is closed, so it cannot hold a socket for minutes.
     */
    REQUEST_TIMEOUT_MS: z.coerce.number().int().min(500).max(600_000).default(30_000),
    HEADERS_TIMEOUT_MS: z.coerce.number().int().min(500).max(600_000).default(15_000),
    /** The one origin of every link the service writes; unset: http://localhost:PORT (public-origin.ts). */
    PUBLIC_BASE_URL: z.url().optional(),
    /**
     * SMTP server for email to partners (`smtp://user:pass@host:587`, `smtps://...`); unset: no
     * email is written or sent. Links in emails use PUBLIC_BASE_URL (else http://localhost:PORT).
     */
    SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
    /** The From address; the name shown is the program's sender name (its settings) or its name. */
    SMTP_FROM: z.email().default('partners@localhost'),
    /** Tries per email before it is given up, and the first retry delay (doubles each time): 10 × 1 min ≈ 17 h. */
    EMAIL_ATTEMPTS: z.coerce.number().int().min(1).max(30).default(10),
    EMAIL_RETRY_BASE_MS: z.coerce.number().int().min(10).default(60_000),
    /** How long a worker holds an email it is sending; one killed mid-send leaves it to be sent again after this. */
    EMAIL_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
    /**
     * Currencies sales may be recorded in besides the contract's USD, EUR and VND: `all` (every
     * ISO 4217 currency with a minor unit) or a comma-separated list (`GBP,JPY,KWD`). Unset: the
     * three, any other code answered 422 `unsupported_currency` (docs/currencies.md).
     */
    CURRENCIES: currencyList,
    /** Lifetime of a dashboard or portal sign-in. */
    SESSION_TTL_HOURS: z.coerce
      .number()
      .min(0.01)
      .max(24 * 30)
      .default(12),
    /** Lifetime of a partner invite link. */
    INVITE_TTL_HOURS: z.coerce
      .number()
      .min(0.01)
      .max(24 * 30)
      .default(72),
    /** Unset: the API reference this service serves, `<PUBLIC_BASE_URL or http://localhost:PORT>/docs`. */
    DOCS_URL: z.url().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** `auto`: readable lines when stdout is a terminal, JSON lines otherwise (log collectors). */
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
    /** Port of the worker role's /healthz and /readyz listener; unset = no listener. */
    WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /**
     * After SIGTERM/SIGINT: how long /readyz answers 503 (draining) while the listener still accepts
     * and serves, so load balancers stop sending before it closes. Unset = 5000 in production mode,
     * 0 in embedded mode (one process, nobody to hand traffic to).
     */
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(300_000).optional(),
    /** Create a demo program with keys on first start in embedded mode. */
    DEMO_SEED: bool.default(true),
    /** GET /demo (a page embedding the tracker); unset = on in embedded mode, off in production mode. */
    DEMO_PAGE: bool.optional(),
    /**
     * Comma-separated origins (`https://api.example.com`) the demo page's `api_base` may name besides
     * the page's own host; any other origin is a 400, so the page cannot be pointed elsewhere.
     */
    DEMO_API_ORIGINS: originList,
    /**
     * Number of trusted proxies in front of the service (`true` = 1). The client address is then the
     * X-Forwarded-For entry appended by the outermost of them (counted from the right, never the
     * leftmost, which the client writes); 0 = the socket address.
     */
    TRUST_PROXY: proxyHops.default(0),
    /** Per-client-address limits of the unauthenticated routes, and of the status route per key. */
    CLICK_LIMIT_PER_MINUTE: perMinute(120),
    BROWSER_LEAD_LIMIT_PER_MINUTE: perMinute(20),
    /** Partner applications per client address and minute (the public form, spam limit). */
    APPLICATION_LIMIT_PER_MINUTE: perMinute(5),
    /** Counted before the body is read; a provider's deliveries come from few addresses. */
    WEBHOOK_LIMIT_PER_MINUTE: perMinute(1_200),
    ADMIN_AUTH_FAILURES_PER_MINUTE: perMinute(10),
    /** Unknown or revoked API keys per client address before its further failures answer 429. */
    API_KEY_FAILURES_PER_MINUTE: perMinute(60),
    STATUS_LIMIT_PER_MINUTE: perMinute(60),
  })
  .refine((c) => c.HEADERS_TIMEOUT_MS <= c.REQUEST_TIMEOUT_MS, {
    path: ['HEADERS_TIMEOUT_MS'],
    message: 'HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS',
  });
export type Config = z.infer<typeof configSchema>;

/** Whether this process collects metrics (METRICS_ENABLED, by default whether they can be scraped). */
export function metricsEnabled(config: Pick<Config, 'METRICS_ENABLED' | 'METRICS_TOKEN'>): boolean {
  return config.METRICS_ENABLED ?? config.METRICS_TOKEN !== undefined;
}

/** Parses the environment or throws an Error listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const res = configSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (res.success) return res.data;
  const lines = res.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
}
