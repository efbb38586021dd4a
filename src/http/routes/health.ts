import type { HttpContext } from '../http-context.ts';
import { QUEUE_NAMES, type QueueName } from '../../queue/job-queue.ts';
import { pingDatabase } from '../../core/reporting/ping-database.ts';
import { json } from '../route.ts';
import { z } from 'zod';
import pTimeout from 'p-timeout';
import { defineOperation } from '../openapi/operation.ts';

/** GET /healthz: the process is up. */
export const healthz = () => ({ status: 'ok' });

/**
 * How long each readiness check may take: a dependency that has not answered by then is reported
 * as not answering, so /readyz itself answers within a second even while the database or Redis
 * hangs (a network partition keeps the connection open and never errors).
 */
export const READINESS_CHECK_MS = 750;

const within = <T>(check: Promise<T>, fallback: T) =>
  pTimeout(
    check.catch(() => fallback),
    { milliseconds: READINESS_CHECK_MS, fallback: () => fallback },
  );

/**
 * GET /readyz: the database and the queue answer, and a worker consumes every queue — without
 * one an `http` process would accept calls that can only end in a 503 after JOB_WAIT_TIMEOUT_MS,
 * so a load balancer should not send it traffic yet. 503 with the reasons otherwise; from SIGTERM on
 * the reason `draining` (the process still serves for SHUTDOWN_DRAIN_MS, then closes). Each check
 * is bounded by READINESS_CHECK_MS. Served by the HTTP app and by the worker role's health listener.
 */
export function readyz(ctx: HttpContext) {
  return async () => {
    const [database, queue, consumers] = await Promise.all([
      within(pingDatabase(ctx.deps()), false),
      within(ctx.queue.ping(), false),
      within<Record<QueueName, number> | null>(ctx.queue.consumers(), null),
    ]);
    const idle = consumers ? QUEUE_NAMES.filter((q) => consumers[q] < 1) : [...QUEUE_NAMES];
    const reasons = [
      ...(ctx.lifecycle.draining ? ['draining'] : []),
      ...(database ? [] : ['the database does not answer']),
      ...(queue ? [] : [`the queue (${ctx.queue.kind}) does not answer`]),
      ...(queue && idle.length
        ? [`no worker is consuming the queue(s) ${idle.join(', ')}: start one (npm run start:worker)`]
        : []),
    ];
    const ok = reasons.length === 0;
    return json(
      {
        status: ok ? 'ready' : 'unavailable',
        database,
        queue: ctx.queue.kind,
        queue_ok: queue,
        workers: consumers ?? {},
        ...(ok ? {} : { reasons }),
      },
      ok ? 200 : 503,
    );
  };
}

export const healthzOperation = defineOperation({
  method: 'get',
  path: '/healthz',
  operationId: 'healthz',
  tag: 'Service',
  security: [],
  summary: 'Liveness: the process is up',
  responses: { 200: { description: 'Up', schema: z.strictObject({ status: z.literal('ok') }) } },
  errors: [],
});

const readiness = z.strictObject({
  status: z.enum(['ready', 'unavailable']),
  database: z.boolean(),
  queue: z.enum(['bullmq', 'memory']),
  queue_ok: z.boolean(),
  workers: z.record(z.string(), z.number().int()),
  reasons: z.array(z.string()).optional(),
});
export const readyzOperation = defineOperation({
  method: 'get',
  path: '/readyz',
  operationId: 'readyz',
  tag: 'Service',
  security: [],
  summary: 'Readiness: the database and the queue answer',
  responses: { 200: { description: 'Ready', schema: readiness }, 503: { description: 'Not ready', schema: readiness } },
  errors: [],
});
