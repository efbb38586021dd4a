import type { H3Event } from 'h3';
import type { HttpContext, RouteContext } from './http-context.ts';
import { AppError } from '../core/errors.ts';
import type { TrackJob, TrackJobKind } from '../core/jobs/job.ts';
import type { JobResults } from '../core/jobs/job-results.ts';
import { enqueueAndWait } from '../queue/enqueue-and-wait.ts';
import { EnqueueError, JobTimeoutError } from '../queue/job-queue.ts';
import { internalError, renderError } from './error-table.ts';

export type Handler = (event: H3Event) => Promise<Response | object>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * Wraps a handler: objects become 200 JSON; AppErrors render from the error table; a queue that
 * cannot take or answer the job becomes a retryable 503; anything else is logged and answered
 * with the fixed `internal_error`.
 */
export function route(ctx: HttpContext, fn: Handler): (event: H3Event) => Promise<Response> {
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

function toAppError(ctx: HttpContext, event: H3Event, err: unknown): AppError {
  if (err instanceof AppError) return err;
  const log = ctx.log.child({ reqId: event.context.requestId, path: event.url.pathname });
  if (err instanceof EnqueueError || err instanceof JobTimeoutError) {
    log.warn({ err: err.message }, 'queue unavailable or slow; answered 503');
    return new AppError(
      'service_unavailable',
      'The service is temporarily unable to process this request; retry later (retrying is safe).',
      {},
      {
        retry_after_seconds: err instanceof JobTimeoutError ? 2 : 5,
      },
    );
  }
  log.error(
    { err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
    'unhandled error',
  );
  return internalError();
}

/** Enqueues a track job and waits for its result (typed by the job); expected errors rethrown as themselves. */
export function runJob<K extends TrackJobKind>(ctx: RouteContext, job: TrackJob & { kind: K }): Promise<JobResults[K]> {
  return enqueueAndWait<K>(ctx.queue, job, ctx.config.JOB_WAIT_TIMEOUT_MS);
}
