import type { RouteContext } from '../http-context.ts';
import { getProgramStatus } from '../../core/reporting/get-program-status.ts';
import { programStatusToWire } from '../wire/program-status.ts';
import { keyWarnings, keyWarningsSchema, requireApiKey } from '../auth.ts';
import { route } from '../route.ts';
import { z } from 'zod';
import { defineOperation } from '../openapi/operation.ts';
import { apiKeyKey, programKey } from '../../read-routing.ts';

/** GET /api/v1/cli/status: program health for the merchant CLI. */
export function cliStatusRoute(ctx: RouteContext) {
  return route([requireApiKey(ctx, { budget: 'status' })], async (event) => {
    const auth = event.context.apiKey!;
    const status = await ctx.reads.read([programKey(auth.programId), apiKeyKey(auth.keyId)], (d) =>
      getProgramStatus(d, auth.programId, auth.mode),
    );
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
  description:
    "A live key's activity counts the program's live rows; a test key's counts its test traffic (test sales and test leads; clicks and refunds have no test rows: 0).",
  responses: { 200: { description: 'Status', schema: cliStatusResponseSchema } },
  errors: ['unauthorized', 'api_key_rotation_required', 'rate_limited'],
});
