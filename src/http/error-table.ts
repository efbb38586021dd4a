import type { ErrorCode } from '../core/errors.ts';
import { AppError } from '../core/errors.ts';

type Render = { status: number; name: string; envelope: 'platform' | 'typed' };

/** The one table that renders every error code (spec: Errors). */
export const ERROR_TABLE: Record<ErrorCode, Render> = {
  invalid_request: { status: 400, name: 'BadRequestError', envelope: 'platform' },
  no_attribution: { status: 400, name: 'BadRequestError', envelope: 'platform' },
  invalid_signature: { status: 400, name: 'BadRequestError', envelope: 'platform' },
  unauthorized: { status: 401, name: 'UnauthorizedError', envelope: 'platform' },
  api_key_rotation_required: { status: 401, name: 'UnauthorizedError', envelope: 'typed' },
  forbidden: { status: 403, name: 'ForbiddenError', envelope: 'platform' },
  not_found: { status: 404, name: 'NotFoundError', envelope: 'platform' },
  duplicate_transaction: { status: 409, name: 'ConflictError', envelope: 'platform' },
  payload_too_large: { status: 413, name: 'PayloadTooLargeError', envelope: 'platform' },
  unsupported_media_type: { status: 415, name: 'UnsupportedMediaTypeError', envelope: 'platform' },
  unsupported_currency: { status: 422, name: 'UnprocessableEntityError', envelope: 'platform' },
  rate_limited: { status: 429, name: 'TooManyRequestsError', envelope: 'typed' },
  internal_error: { status: 500, name: 'InternalServerError', envelope: 'platform' },
  service_unavailable: { status: 503, name: 'ServiceUnavailableError', envelope: 'typed' },
};

/** Fixed text for unknown failures; the real error only goes to the log. */
export const INTERNAL_MESSAGE = 'An internal error occurred; it has been logged.';

/** Renders an AppError as the spec's platform or typed envelope. */
export function renderError(err: AppError, headers: Record<string, string> = {}): Response {
  const r = ERROR_TABLE[err.code];
  const body =
    r.envelope === 'platform'
      ? {
          data: null,
          error: { status: r.status, name: r.name, message: err.message, details: err.details, code: err.code },
        }
      : { error: { code: err.code, message: err.message, ...err.fields } };
  const h: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...headers };
  if (typeof err.fields.retry_after_seconds === 'number') h['retry-after'] = String(err.fields.retry_after_seconds);
  // The rest of an oversized body is left unread, so the connection cannot carry another request:
  // say so, or a keep-alive client reuses a socket the server drops (test/faults/http-limits).
  if (err.code === 'payload_too_large') h.connection = 'close';
  return new Response(JSON.stringify(body), { status: r.status, headers: h });
}

export function internalError(): AppError {
  return new AppError('internal_error', INTERNAL_MESSAGE);
}
