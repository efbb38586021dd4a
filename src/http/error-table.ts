import type { H3Event, HTTPError } from 'h3';
import type { HttpContext } from './http-context.ts';
import type { ErrorCode } from '../core/shared/errors.ts';
import { AppError } from '../core/shared/errors.ts';
import { isDatabaseTimeout, isDatabaseUnavailable } from '../core/db/data-error.ts';
import { EnqueueError, JobTimeoutError, JobUnavailableError } from '../queue/job-queue.ts';

type Render = { status: number; name: string; envelope: 'platform' | 'typed' };

/** The one table that renders every error code (spec: Errors). */
export const ERROR_TABLE: Record<ErrorCode, Render> = {
  invalid_request: { status: 400, name: 'BadRequestError', envelope: 'platform' },
  url_not_allowed: { status: 400, name: 'BadRequestError', envelope: 'platform' },
  no_attribution: { status: 400, name: 'BadRequestError', envelope: 'platform' },
  invalid_signature: { status: 400, name: 'BadRequestError', envelope: 'platform' },
  unauthorized: { status: 401, name: 'UnauthorizedError', envelope: 'platform' },
  api_key_rotation_required: { status: 401, name: 'UnauthorizedError', envelope: 'typed' },
  forbidden: { status: 403, name: 'ForbiddenError', envelope: 'platform' },
  not_found: { status: 404, name: 'NotFoundError', envelope: 'platform' },
  duplicate_transaction: { status: 409, name: 'ConflictError', envelope: 'platform' },
  conflict: { status: 409, name: 'ConflictError', envelope: 'platform' },
  payload_too_large: { status: 413, name: 'PayloadTooLargeError', envelope: 'platform' },
  unsupported_media_type: { status: 415, name: 'UnsupportedMediaTypeError', envelope: 'platform' },
  unsupported_currency: { status: 422, name: 'UnprocessableEntityError', envelope: 'platform' },
  rate_limited: { status: 429, name: 'TooManyRequestsError', envelope: 'typed' },
  internal_error: { status: 500, name: 'InternalServerError', envelope: 'platform' },
  service_unavailable: { status: 503, name: 'ServiceUnavailableError', envelope: 'typed' },
};

/** What a 503 for a database that did not answer in time (DB_QUERY_TIMEOUT_MS) tells the client to wait. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The `onError` hook: renders every error a route, its middleware or the router raises, with the
 * headers staged for the response (CORS, key deprecation), and logs the unexpected ones. h3 hands
 * over what a route threw wrapped in an HTTPError whose `cause` is the original.
 */
export function errorHook(ctx: HttpContext): (error: HTTPError, event: H3Event) => Response {
  return (error, event) => renderError(toAppError(ctx, error, event), event.res.errHeaders);
}

/**
 * AppErrors render from the table; a queue that cannot take or answer the job, or a database that
 * does not answer within the request's bound (DB_QUERY_TIMEOUT_MS) or cannot be reached (a
 * restarting server or pooler), becomes a retryable 503; a
 * path or method without a route is `not_found`; h3's own 400 is `invalid_request`; anything else
 * is logged and answered with the fixed `internal_error`.
 */
function toAppError(ctx: HttpContext, error: HTTPError, event: H3Event): AppError {
  const err = error.unhandled ? error.cause : error;
  if (err instanceof AppError) return err;
  const log = ctx.log.child({ reqId: event.context.requestId, path: event.url.pathname });
  if (err instanceof EnqueueError || err instanceof JobTimeoutError || err instanceof JobUnavailableError) {
    log.warn({ err: err.message }, 'queue unavailable or slow; answered 503');
    return new AppError(
      'service_unavailable',
      'The service is temporarily unable to process this request; retry later (retrying is safe).',
      {},
      { retry_after_seconds: err instanceof JobTimeoutError ? 2 : 5 },
    );
  }
  if (isDatabaseTimeout(err)) {
    log.warn({ err: (err as Error).message }, 'database did not answer in time; answered 503');
    return new AppError(
      'service_unavailable',
      'The database did not answer in time; retry later.',
      {},
      { retry_after_seconds: DATABASE_RETRY_AFTER_SECONDS },
    );
  }
  if (isDatabaseUnavailable(err)) {
    log.warn({ err: (err as Error).message }, 'database unreachable or connection lost; answered 503');
    return new AppError(
      'service_unavailable',
      'The database could not be reached; retry later.',
      {},
      { retry_after_seconds: DATABASE_RETRY_AFTER_SECONDS },
    );
  }
  if (!error.unhandled && (error.status === 404 || error.status === 405))
    return new AppError('not_found', `No route for ${event.req.method} ${event.url.pathname}`);
  // h3's own 400: a path whose percent-encoding cannot be decoded (`/%ZZ`) is the caller's error.
  if (!error.unhandled && error.status === 400)
    return new AppError('invalid_request', 'Malformed request: the URL could not be decoded');
  log.error(
    { err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
    'unhandled error',
  );
  // Fixed text: the real error only goes to the log.
  return new AppError('internal_error', 'An internal error occurred; it has been logged.');
}

/** Renders an AppError as the spec's platform or typed envelope. */
function renderError(err: AppError, staged: Headers): Response {
  const r = ERROR_TABLE[err.code];
  const body =
    r.envelope === 'platform'
      ? {
          data: null,
          error: { status: r.status, name: r.name, message: err.message, details: err.details, code: err.code },
        }
      : { error: { code: err.code, message: err.message, ...err.fields } };
  const h = new Headers(staged);
  h.set('content-type', 'application/json; charset=utf-8');
  if (typeof err.fields.retry_after_seconds === 'number') h.set('retry-after', String(err.fields.retry_after_seconds));
  // The rest of an oversized body is left unread, so the connection cannot carry another request:
  // say so, or a keep-alive client reuses a socket the server drops (test/faults/http-limits).
  if (err.code === 'payload_too_large') h.set('connection', 'close');
  return new Response(JSON.stringify(body), { status: r.status, headers: h });
}
