import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../core/shared/errors.ts';
import { ERROR_TABLE } from '../error-table.ts';
import { errorResponseSchema, platformEnvelopeSchema, typedEnvelopeSchema } from './error-envelopes.ts';
import { jsonSchema, type Json } from './json-schema.ts';
import { openApiPath, pathParamsOf, type Operation, type SecurityScheme } from './operation.ts';
import { OUTBOUND_EVENTS_TAG, outboundWebhooks } from './outbound-webhooks.ts';

import { CSRF_HEADER, SESSION_COOKIES } from '../session-auth.ts';

type SchemeName = SecurityScheme | 'csrfToken';

/**
 * Errors every route can answer (a database that does not answer within the request's bound is a
 * 503 anywhere: docs/operations.md, Bounds on a hung dependency), and those of any route that reads a JSON body.
 */
const ALWAYS: ErrorCode[] = ['internal_error', 'service_unavailable'];
const WITH_BODY: ErrorCode[] = ['invalid_request', 'payload_too_large', 'unsupported_media_type'];

const SECURITY_SCHEMES: Record<SchemeName, Json> = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A program API key (`Authorization: Bearer <API_KEY>`); a test key produces test traffic. A server secret: never put it in browser code.',
  },
  adminToken: { type: 'http', scheme: 'bearer', description: 'The `ADMIN_TOKEN` of the deployment.' },
  mcpToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An MCP token of one program (`POST /api/v1/admin/programs/{id}/mcp-tokens`), scope `read` or `write`.',
  },
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The `METRICS_TOKEN` of the deployment (reads metrics, nothing else).',
  },
  stripeSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'stripe-signature',
    description: 'Stripe webhook signature (HMAC-SHA256 of the raw body with the endpoint secret).',
  },
  paddleSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'paddle-signature',
    description: 'Paddle Billing webhook signature.',
  },
  lemonSqueezySignature: {
    type: 'apiKey',
    in: 'header',
    name: 'x-signature',
    description: 'Lemon Squeezy webhook signature (HMAC-SHA256 hex of the raw body).',
  },
  standardWebhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description:
      'Polar and Dodo Payments (the Standard Webhooks scheme): `webhook-signature` is the HMAC-SHA256 of `webhook-id`, `webhook-timestamp` and the raw body, with the endpoint secret; both other headers are required, and the timestamp must be within 5 minutes.',
  },
  creemSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'creem-signature',
    description: 'Creem webhook signature (HMAC-SHA256 hex of the raw body with the webhook secret).',
  },
  sepaySignature: {
    type: 'apiKey',
    in: 'header',
    name: 'x-sepay-signature',
    description:
      'SePay webhooks in HMAC-SHA256 mode: `X-SePay-Signature: sha256=<hex>`, the HMAC-SHA256 of `<X-SePay-Timestamp>.<raw body>` with the secret connected; the timestamp (Unix seconds) must be within 5 minutes.',
  },
  sepayApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'authorization',
    description:
      'SePay webhooks in API Key mode: `Authorization: Apikey <key>`, the key chosen in SePay and connected as the secret. (PayOS signs inside the body: `signature` is the HMAC-SHA256 of the sorted `data` fields with the checksum key.)',
  },
  operatorSession: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIES.operator.name,
    description:
      "The dashboard's operator session (`POST /api/v1/dashboard/session` with the admin token sets it). Writes also need `csrfToken`.",
  },
  partnerSession: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIES.partner.name,
    description:
      "A partner's portal session (`POST /api/v1/partner/session` or an accepted invite sets it). Writes also need `csrfToken`.",
  },
  csrfToken: {
    type: 'apiKey',
    in: 'header',
    name: CSRF_HEADER,
    description:
      'The `csrf_token` the session was opened with; required with a session cookie on every write (403 `forbidden` without it).',
  },
};

const SESSIONS = new Set<SecurityScheme>(['operatorSession', 'partnerSession']);

/** One security requirement: a session cookie on a write goes with the CSRF header. */
function requirement(op: Operation, s: SecurityScheme | 'none'): Json {
  if (s === 'none') return {};
  return SESSIONS.has(s) && op.method !== 'get' ? { [s]: [], csrfToken: [] } : { [s]: [] };
}

/** The codes an operation documents, by HTTP status. */
export function errorCodesOf(op: Operation): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>([...op.errors, ...ALWAYS, ...(op.body ? WITH_BODY : [])]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ERROR_CODES.filter((c) => codes.has(c))) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/** Every response schema of an operation by status: its own, then its error envelopes. */
export function responseSchemasOf(op: Operation): Map<number, { schema?: z.ZodType; contentTypes: string[] }> {
  const out = new Map<number, { schema?: z.ZodType; contentTypes: string[] }>();
  for (const [status, r] of Object.entries(op.responses))
    out.set(Number(status), { schema: r.schema, contentTypes: [r.contentType ?? 'application/json'].flat() });
  for (const [status, codes] of errorCodesOf(op))
    if (!out.has(status))
      out.set(status, { schema: errorResponseSchema(status, codes), contentTypes: ['application/json'] });
  return out;
}

function operationObject(op: Operation): Json {
  const parameters: Json[] = [];
  for (const name of pathParamsOf(op.path)) {
    const schema = op.params?.[name];
    const rest =
      name === 'path' && op.path.endsWith('/**')
        ? { description: 'The rest of the path (any number of segments)' }
        : {};
    parameters.push({
      name,
      in: 'path',
      required: true,
      ...rest,
      schema: schema ? jsonSchema(schema, 'input') : { type: 'string' },
    });
  }
  if (op.query) {
    const q = jsonSchema(op.query, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {}))
      parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
  }
  for (const [name, h] of Object.entries(op.headers ?? {}))
    parameters.push({
      name,
      in: 'header',
      required: h.required,
      description: h.description,
      schema: { type: 'string' },
    });

  const responses: Json = {};
  const codes = errorCodesOf(op);
  for (const [status, r] of responseSchemasOf(op)) {
    const own = op.responses[status];
    const errorCodes = codes.get(status);
    const description = own?.description ?? `Error: ${errorCodes?.map((c) => `\`${c}\``).join(', ')}`;
    // A file without a schema is a string; a JSON file (a source map) is any JSON.
    const media = (type: string): Json => ({
      schema: r.schema ? jsonSchema(r.schema, 'output') : type === 'application/json' ? {} : { type: 'string' },
      ...(own?.example !== undefined ? { example: own.example } : {}),
    });
    // 304, and a 202 without a schema (an accepted MCP notification): no body.
    responses[String(status)] =
      status === 304 || (status === 202 && !r.schema)
        ? { description }
        : { description, content: Object.fromEntries(r.contentTypes.map((t) => [t, media(t)])) };
  }
  const o: Json = {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    security: op.security.length ? op.security.map((s) => requirement(op, s)) : [{}],
    responses,
  };
  if (op.description) o.description = op.description;
  if (parameters.length) o.parameters = parameters;
  if (op.body) {
    const media: Json = { schema: jsonSchema(op.body, 'input') };
    if (op.bodyExample !== undefined) media.example = op.bodyExample;
    o.requestBody = { required: !op.bodyOptional, content: { 'application/json': media } };
  } else if (op.rawBody) {
    o.requestBody = {
      required: true,
      description: op.rawBody,
      content: { 'application/json': { schema: { type: 'object' } } },
    };
  }
  return o;
}

/** The OpenAPI 3.1 document of the given operations. */
export function buildOpenApiDocument(ops: readonly Operation[], info: { version: string; serverUrl?: string }): Json {
  const paths: Record<string, Json> = {};
  for (const op of ops) {
    const path = openApiPath(op.path);
    if (paths[path]?.[op.method]) throw new Error(`two operations for ${op.method.toUpperCase()} ${op.path}`);
    paths[path] = { ...paths[path], [op.method]: operationObject(op) };
  }
  const platform = ERROR_CODES.filter((c) => ERROR_TABLE[c].envelope === 'platform');
  const typed = ERROR_CODES.filter((c) => ERROR_TABLE[c].envelope === 'typed');
  return {
    openapi: '3.1.1',
    info: {
      title: 'Partner conversion tracking API',
      version: info.version,
      description: [
        'Attributes conversions (clicks, leads, sales, refunds) to referring partners and pays commissions on them.',
        'Wire fields are snake_case. Money is integer minor units (`..._cents`).',
        '',
        'Errors come in two envelopes; branch on `error.code`, never on the message:',
        '- **platform**: `data` (null) and `error` with `status`, `name`, `message`, `details`, `code`;',
        '- **typed**: `error` with `code`, `message` and fields of its own (retired API key, rate limiting, queue unavailable).',
        '',
        '| code | status | envelope |',
        '|---|---|---|',
        ...ERROR_CODES.map((c) => `| \`${c}\` | ${ERROR_TABLE[c].status} | ${ERROR_TABLE[c].envelope} |`),
      ].join('\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Without PUBLIC_BASE_URL: the server that serves this document (a relative URL, as OpenAPI allows).
    servers: [
      info.serverUrl
        ? { url: info.serverUrl }
        : { url: '/', description: 'The server serving this document (set PUBLIC_BASE_URL to name it)' },
    ],
    tags: [
      { name: 'Tracking', description: 'Conversion API: clicks, leads, sales, refunds, test events, program status' },
      { name: 'Webhooks', description: 'Payment-provider events, verified over the raw bytes' },
      { name: 'Admin', description: "Management API behind the ADMIN_TOKEN (or the dashboard's operator session)" },
      {
        name: 'Partner',
        description: "The partner API behind the portal: sign-in, invites, the signed-in partner's own data",
      },
      { name: 'Apps', description: 'The dashboard and the partner portal (a single-page app and its assets)' },
      { name: 'Service', description: 'Health, metrics, this document, the browser tracker' },
      OUTBOUND_EVENTS_TAG,
    ],
    paths,
    webhooks: outboundWebhooks(),
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: {
        PlatformError: jsonSchema(
          z.union(
            platform.map((c) => platformEnvelopeSchema(ERROR_TABLE[c].status, [c])) as unknown as [
              z.ZodType,
              z.ZodType,
            ],
          ),
          'output',
        ),
        TypedError: jsonSchema(typedEnvelopeSchema(typed), 'output'),
      },
    },
  };
}
