import type { RouteContext } from '../http-context.ts';
import { getProgramStatus } from '../../core/get-program-status.ts';
import { programStatusToWire } from '../wire/program-status.ts';
import { authenticate, keyWarnings } from '../auth.ts';
import { route } from '../route.ts';
import { AppError } from '../../core/errors.ts';
import { z } from 'zod';
import { defineOperation } from '../openapi/operation.ts';
import { keyWarningsSchema } from '../auth.ts';

/** GET /api/v1/cli/status: program health for the merchant CLI. */
export function cliStatusRoute(ctx: RouteContext) {
  return route(async (event) => {
    const auth = await authenticate(ctx, event);
    // Four counts per call: a budget of its own per key, apart from the tracking calls'.
    const d = await ctx.rateLimiter.hit(`status-key${auth.keyId}`, ctx.config.STATUS_LIMIT_PER_MINUTE);
    if (!d.allowed) ctx.metrics.rateLimited.inc({ limiter: 'status' });
    if (!d.allowed)
      throw new AppError(
        'rate_limited',
        `Rate limit of ${ctx.config.STATUS_LIMIT_PER_MINUTE} status calls per minute exceeded`,
        {},
        { retry_after_seconds: d.retryAfterSeconds },
      );
    const status = await getProgramStatus(ctx.deps(), auth.programId, auth.mode);
    return { success: true, ...programStatusToWire(status), ...keyWarnings(auth) };
  });
}

const activity = z.strictObject({ count: z.number().int(), last_at: z.iso.datetime().nullable() });
export const cliStatusResponseSchema = z.strictObject({
  success: z.literal(true),
  program: z.strictObject({ id: z.number().int(), name: z.string(), domain: z.string().nullable() }),
  key_mode: z.enum(['live', 'test']),
  activity: z.strictObject({ clicks: activity, leads: activity, sales: activity, refunds: activity }),
  ignored_provider_events: z.strictObject({
    count: z.number().int(),
    last_at: z.iso.datetime().nullable(),
    by_reason: z.record(z.string(), z.number().int()),
  }),
  connected_providers: z.array(z.strictObject({ provider: z.string(), connected_at: z.iso.datetime() })),
  server_time: z.iso.datetime(),
  warnings: keyWarningsSchema,
});

export const cliStatusOperation = defineOperation({
  method: 'get',
  path: '/api/v1/cli/status',
  operationId: 'getProgramStatus',
  tag: 'Tracking',
  security: ['apiKey'],
  summary: "Program health: the key's program, recent activity, connected providers",
  responses: { 200: { description: 'Status', schema: cliStatusResponseSchema } },
  errors: ['unauthorized', 'api_key_rotation_required', 'rate_limited'],
});
