import type { z } from 'zod';
import type { ErrorCode } from '../../core/shared/errors.ts';

/** How a caller proves who it is; each maps to a security scheme of the document. */
export type SecurityScheme =
  | 'apiKey'
  | 'adminToken'
  | 'metricsToken'
  /** An MCP token of one program (`/mcp`): read, or read and write. */
  | 'mcpToken'
  | 'stripeSignature'
  | 'paddleSignature'
  | 'lemonSqueezySignature'
  /** Polar and Dodo Payments: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
  | 'standardWebhookSignature'
  | 'creemSignature'
  /** SePay: `Authorization: Apikey <key>`. */
  | 'sepaySignature'
  | 'sepayApiKey'
  /** Browser sessions: the cookie, plus the `x-csrf-token` header on every write. */
  | 'operatorSession'
  | 'partnerSession';
/** A scheme, or `none`: the operation may also be called without credentials. */
export type Security = SecurityScheme | 'none';

export type ResponseDoc = {
  description: string;
  /** JSON body schema (the edge's response schema); omit for non-JSON bodies. */
  schema?: z.ZodType;
  /** Defaults to application/json; several for a route that serves files of several types. */
  contentType?: string | string[];
  example?: unknown;
};

/**
 * One documented route: its route file declares it next to the handler and the zod schemas it
 * validates with, and `operations.ts` lists it. The document, the /docs page and the contract
 * test are all built from these entries.
 */
export type Operation = {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /**
   * The h3 route pattern exactly as registered (`/api/v1/webhooks/:provider/:programId`); a
   * trailing `**` (any rest of the path) is the path parameter `path` in the document.
   */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: 'Tracking' | 'Webhooks' | 'Admin' | 'Partner' | 'Apps' | 'Service';
  /** Alternatives (any one suffices); empty = no authentication. */
  security: Security[];
  /** Path parameters by name; a parameter without an entry is a string. */
  params?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  headers?: Record<string, { description: string; required: boolean }>;
  body?: z.ZodType;
  /** The body may be left out (every field has a default). */
  bodyOptional?: boolean;
  /** Body given as raw bytes (provider webhooks): described, not parsed with a schema. */
  rawBody?: string;
  bodyExample?: unknown;
  responses: Record<number, ResponseDoc>;
  /**
   * Error codes this route renders (statuses and envelopes come from the error table). Every
   * operation also documents `internal_error`, and one with a body the body's own errors.
   */
  errors: ErrorCode[];
};

export function defineOperation(op: Operation): Operation {
  return op;
}

/** `/a/:b/c` → `/a/{b}/c`; `/a/**` → `/a/{path}` */
export function openApiPath(h3Path: string): string {
  return h3Path.replace(/:(\w+)/g, '{$1}').replace(/\/\*\*$/, '/{path}');
}

/** The path parameters of an h3 pattern, in order (`**` is `path`). */
export function pathParamsOf(h3Path: string): string[] {
  return [...openApiPath(h3Path).matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}
