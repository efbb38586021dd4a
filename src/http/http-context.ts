import type { Logger as PinoLogger } from 'pino';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { AuthenticatedKey } from '../core/programs/api-keys.ts';
import type { Clock, CoreDeps } from '../core/deps.ts';
import type { Metrics } from '../metrics/create-metrics.ts';
import type { ProviderAdapters } from '../providers/registry.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { KeyCache } from './key-cache.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { ReportGate } from './report-gate.ts';
import type { ReadRouting } from '../read-routing.ts';
import type { ActiveSession } from '../core/programs/sessions.ts';
import type { StaffRoleName } from '../core/shared/staff-roles.ts';
import type { SourceFetch } from '../importers/reader-options.ts';

/**
 * The caller of an admin route: the operator (ADMIN_TOKEN, or its dashboard session), or a staff
 * user (session, or one of their tokens, limited to its program and role).
 */
export type AdminCaller =
  | { kind: 'operator' }
  | {
      kind: 'staff';
      staffUserId: number;
      email: string;
      token: { id: number; programId: number; role: StaffRoleName } | null;
    };

/** What the HTTP app is given (the app context satisfies it). */
export type HttpContext = {
  config: Config;
  queue: JobQueue;
  log: PinoLogger;
  clock: Clock;
  providers: ProviderAdapters;
  redis: Redis | null;
  metrics: Metrics;
  /** `draining` once shutdown began (readiness 503 while requests are still served). */
  lifecycle: { readonly draining: boolean };
  /** Lead email → keyed hash; the address itself is never stored. */
  hashEmail(email: string | null | undefined): string | null;
  deps(): CoreDeps;
  /** Dashboard, export, statement and status reads: on the read replica when it may serve them. */
  reads: ReadRouting;
  /** Random per database: part of queue job ids (outbound event deliveries enqueued by admin calls). */
  instanceNonce: string;
  /** An import source's API is read through the outbound URL guard (every connection checked). */
  sourceFetch: SourceFetch;
};

/** What routes use: the HTTP context plus the edge's own per-process state, built by the app. */
export type RouteContext = HttpContext & { rateLimiter: RateLimiter; keyCache: KeyCache; reports: ReportGate };

declare module 'h3' {
  /** What the app and its middleware put on `event.context`. */
  interface H3EventContext {
    /** The caller's X-Request-Id, or a fresh one (the app's onRequest hook). */
    requestId: string;
    /** `performance.now()` when the request arrived (the access log's duration). */
    startedAt: number;
    /** The API key the request authenticated with (auth.ts). */
    apiKey?: AuthenticatedKey;
    /** The browser session the request authenticated with (session-auth.ts). */
    session?: ActiveSession;
    /** The caller of an admin route (session-auth.ts `requireOperator`). */
    admin?: AdminCaller;
  }
}
