import type { H3Event } from 'h3';
import type { AppContext } from '../app-context.ts';
import { AppError } from '../core/errors.ts';
import { EnqueueError, JobTimeoutError, type QueueName } from '../workers/job-queue.ts';
import type { TrackOutcome } from '../workers/processors.ts';
import type { Job } from '../core/jobs.ts';
import { internalError, renderError } from './error-table.ts';

export type Handler = (event: H3Event) => Promise<Response | object>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/**
 * Wraps a handler: objects become 200 JSON; AppErrors render from the error table; a queue that
 * cannot take or answer the job becomes a retryable 503; anything else is logged and answered
 * with the fixed `internal_error`.
 */
export function route(ctx: AppContext, fn: Handler): (event: H3Event) => Promise<Response> {
  return async (event) => {
    // Read after the handler ran: auth may add headers (key rotation warnings).
    const extra = () => (event.context.responseHeaders ?? {}) as Record<string, string>;
    try {
      const out = await fn(event);
      if (out instanceof Response) {
        for (const [k, v] of Object.entries(extra())) out.headers.set(k, v);
        return out;
      }
      return json(out, 200, extra());
    } catch (err) {
      return renderError(toAppError(ctx, event, err), extra());
    }
  };
}

function toAppError(ctx: AppContext, event: H3Event, err: unknown): AppError {
  if (err instanceof AppError) return err;
  const log = ctx.log.child({ reqId: event.context.requestId, path: event.url.pathname });
  if (err instanceof EnqueueError || err instanceof JobTimeoutError) {
    log.warn({ err: err.message }, 'queue unavailable or slow; answered 503');
    return new AppError('service_unavailable', 'The service is temporarily unable to process this request; retry later (retrying is safe).', {}, {
      retry_after_seconds: err instanceof JobTimeoutError ? 2 : 5,
    });
  }
  log.error({ err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) }, 'unhandled error');
  return internalError();
}

/** Enqueues a track job, waits for its outcome and rethrows an expected error as itself. */
export async function runJob(ctx: AppContext, job: Job, queue: QueueName = 'track'): Promise<unknown> {
  const out = (await ctx.queue.addAndWait(queue, job, ctx.config.JOB_WAIT_TIMEOUT_MS)) as TrackOutcome;
  if (!out.ok) throw AppError.from(out.error);
  return out.result;
}
