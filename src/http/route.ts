import { defineHandler, type EventHandler, type H3Event, type Middleware } from 'h3';
import type { RouteContext } from './http-context.ts';
import type { TrackJob, TrackJobKind } from '../core/jobs/job.ts';
import type { JobResults } from '../core/job-results.ts';
import { enqueueAndWait } from '../queue/enqueue-and-wait.ts';

export type Handler = (event: H3Event) => Promise<Response | object>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * A route handler: `middleware` (authentication) runs first; a returned object is answered as
 * JSON; a thrown error is rendered by the app's `onError` hook (error-table.ts).
 */
export function route(fn: Handler): EventHandler;
export function route(middleware: Middleware[], fn: Handler): EventHandler;
export function route(...args: [Handler] | [Middleware[], Handler]): EventHandler {
  const [middleware, fn] = args.length === 1 ? [[], args[0]] : args;
  return defineHandler({
    middleware,
    handler: async (event) => {
      const out = await fn(event);
      return out instanceof Response ? out : json(out);
    },
  });
}

/** A header on this request's response, success or error (h3 merges staged headers into both). */
export function stageHeader(event: H3Event, name: string, value: string): void {
  event.res.headers.set(name, value);
  event.res.errHeaders.set(name, value);
}

/** Enqueues a track job and waits for its result (typed by the job); expected errors rethrown as themselves. */
export function runJob<K extends TrackJobKind>(ctx: RouteContext, job: TrackJob & { kind: K }): Promise<JobResults[K]> {
  return enqueueAndWait<K>(ctx.queue, job, ctx.config.JOB_WAIT_TIMEOUT_MS);
}
