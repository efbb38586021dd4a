/**
 * Every error code the service answers with. Clients branch on `error.code`, never on text.
 * How each renders (status, envelope, name) is decided once, in `src/http/error-table.ts`.
 */
export const ERROR_CODES = [
  'invalid_request',
  'url_not_allowed',
  'no_attribution',
  'unauthorized',
  'api_key_rotation_required',
  'forbidden',
  'not_found',
  'duplicate_transaction',
  'conflict',
  'unsupported_currency',
  'unsupported_media_type',
  'payload_too_large',
  'invalid_signature',
  'rate_limited',
  'service_unavailable',
  'internal_error',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * An expected failure that becomes a 4xx/5xx response. `details` goes into the platform
 * envelope's `details`; `fields` are extra top-level members of a typed envelope
 * (`retry_after_seconds`, `hint`, `docs_url`).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly fields: Record<string, unknown>;
  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    fields: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.fields = fields;
  }

  /** Plain form that survives a trip through the queue. */
  toJSON(): SerializedAppError {
    return { code: this.code, message: this.message, details: this.details, fields: this.fields };
  }

  static from(s: SerializedAppError): AppError {
    return new AppError(s.code, s.message, s.details, s.fields);
  }
}

export type SerializedAppError = {
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
  fields: Record<string, unknown>;
};

/** A transient failure a job should be retried for (a provider that could not answer, a refund job before its sale). */
export class RetryableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryableError';
  }
}
