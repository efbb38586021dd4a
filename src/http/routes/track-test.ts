import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { buildTestEventJob } from '../../core/jobs/test-event-job.ts';
import { requireApiKey } from '../auth.ts';
import { authorizeBrowserOrigin } from '../../core/attribution/authorize-browser-origin.ts';
import { readJson } from '../read-json.ts';
import { enforceClientLimit } from '../client-limit.ts';
import { route, runJob } from '../route.ts';
import { validate, rowId } from '../validate.ts';
import { defineOperation } from '../openapi/operation.ts';
import { testModeResponseSchema } from './track-sale.ts';

export const testEventSchema = z.strictObject({
  program_id: rowId.optional(),
  data: z.record(z.string(), z.unknown()).nullable().optional(),
});

/**
 * POST /api/v1/track/test: a test event (tracker `trackTest`, CLI `test-event`). Keyless from the
 * browser (program id + Origin check) or with a key; always test traffic, never production data.
 */
export function trackTestRoute(ctx: RouteContext) {
  return route([requireApiKey(ctx, { optional: true })], async (event) => {
    const auth = event.context.apiKey;
    if (!auth) await enforceClientLimit(ctx, event, 'browser-test');
    const body = validate(testEventSchema, await readJson(event, ctx.config.BODY_LIMIT_BYTES));
    const programId = auth ? auth.programId : (body.program_id ?? 0);
    if (!auth) await authorizeBrowserOrigin(ctx.deps(), programId, event.req.headers.get('origin'));
    return trackTestEvent(ctx, programId, body.data ?? null);
  });
}

/** Records a test event (a test event row only) and renders the spec's test-mode response. */
export async function trackTestEvent(ctx: RouteContext, programId: number, data: Record<string, unknown> | null) {
  const r = await runJob(ctx, buildTestEventJob({ programId, data, receivedAt: ctx.clock().toISOString() }));
  return {
    success: true,
    message: 'Test event recorded; production data was not changed',
    data: { eventId: r.eventId, programId: r.programId, test_mode: true },
  };
}

export const trackTestOperation = defineOperation({
  method: 'post',
  path: '/api/v1/track/test',
  operationId: 'trackTest',
  tag: 'Tracking',
  security: ['apiKey', 'none'],
  summary: 'Record a test event (keyed, or keyless from the browser)',
  description:
    'With a key, or without one from a page whose Origin matches the program domain (`program_id` then required). Never production data.',
  body: testEventSchema,
  responses: { 200: { description: 'Recorded', schema: testModeResponseSchema } },
  errors: [
    'unauthorized',
    'api_key_rotation_required',
    'forbidden',
    'not_found',
    'rate_limited',
    'service_unavailable',
  ],
});
