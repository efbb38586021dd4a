import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const perMinute = (fallback: number) => z.coerce.number().int().min(1).max(100_000_000).default(fallback);
/** `false` (0), `true` (1) or the number of trusted proxies in front of the service. */
const proxyHops = z.union([z.enum(['true', 'false']).transform((v) => (v === 'true' ? 1 : 0)), z.coerce.number().int().min(0).max(10)]);

export const ROLES = ['serve', 'http', 'worker', 'migrate'] as const;
export type Role = (typeof ROLES)[number];

/** Environment variables, read once at start. A bad value stops the process with a clear message. */
export const configSchema = z.object({
  /** Process role when `node src/main.ts` gets no role argument (`npm start`). */
  ROLE: z.enum(ROLES, { error: `ROLE must be one of: ${ROLES.join(', ')}` }).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** PostgreSQL URL; unset = embedded PGlite under DATA_DIR. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** Redis URL; unset = in-process queue. */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  /** Bearer token of the admin API; unset = admin API disabled (the CLI still works). */
  ADMIN_TOKEN: z.string().min(32, 'ADMIN_TOKEN must be at least 32 characters').optional(),
  /** Bearer token of GET /metrics (Prometheus); unset = metrics endpoint disabled. */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  /** Also serve /metrics alone on this port (the worker role has no other listener). */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  QUEUE_PREFIX: z.string().regex(/^[a-zA-Z0-9_-]+$/).default('tracker'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(20),
  /** How long an API call waits for its job's result before answering a retryable 503. */
  JOB_WAIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** First retry delay of a webhook job (refund before sale); doubles up to WEBHOOK_ATTEMPTS. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).default(2_000),
  WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(10),
  /** Attempts of a notification job, and its first retry delay (doubles on each further attempt). */
  NOTIFY_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
  NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(10).default(1_000),
  /** Interval of the sweepers (inbox, notification outbox, hold-period approvals). */
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).default(30_000),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
  PUBLIC_BASE_URL: z.url().optional(),
  /** Lifetime of a dashboard or portal sign-in. */
  SESSION_TTL_HOURS: z.coerce.number().min(0.01).max(24 * 30).default(12),
  /** Lifetime of a partner invite link. */
  INVITE_TTL_HOURS: z.coerce.number().min(0.01).max(24 * 30).default(72),
  DOCS_URL: z.url().default('https://github.com/partner-conversion-tracker#api-keys'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: readable lines when stdout is a terminal, JSON lines otherwise (log collectors). */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** Port of the worker role's /healthz and /readyz listener; unset = no listener. */
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Create a demo program with keys on first start in embedded mode. */
  DEMO_SEED: bool.default(true),
  /**
   * Number of trusted proxies in front of the service (`true` = 1). The client address is then the
   * X-Forwarded-For entry appended by the outermost of them (counted from the right, never the
   * leftmost, which the client writes); 0 = the socket address.
   */
  TRUST_PROXY: proxyHops.default(0),
  /** Per-client-address limits of the unauthenticated routes, and of the status route per key. */
  CLICK_LIMIT_PER_MINUTE: perMinute(120),
  BROWSER_LEAD_LIMIT_PER_MINUTE: perMinute(20),
  /** Counted before the body is read; a provider's deliveries come from few addresses. */
  WEBHOOK_LIMIT_PER_MINUTE: perMinute(1_200),
  ADMIN_AUTH_FAILURES_PER_MINUTE: perMinute(10),
  STATUS_LIMIT_PER_MINUTE: perMinute(60),
});
export type Config = z.infer<typeof configSchema>;

/** Parses the environment or throws an Error listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const res = configSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (res.success) return res.data;
  const lines = res.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
}
