import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { authorizeBrowserOrigin } from '../../core/attribution/authorize-browser-origin.ts';
import { readJson } from '../read-json.ts';
import { enforceClientLimit } from '../client-limit.ts';
import { route } from '../route.ts';
import { rowId, validate } from '../validate.ts';
import { leadFields, leadIdField, leadResponseSchema, recordLead } from './track-lead.ts';
import { defineOperation } from '../openapi/operation.ts';

/** The tracker's `signup`: no key; the program id and a click of that program are required. */
export const browserLeadSchema = z.strictObject({
  ...leadFields,
  program_id: rowId,
  customer_key: leadIdField,
  click_id: leadIdField,
});

/**
 * POST /api/v1/track/browser-lead: the keyless lead of the browser tracker. The program key never
 * reaches the browser (spec, Authentication rule 7), so the request's Origin must match the
 * program's domain, and a browser lead never rebinds an existing customer.
 */
export function trackBrowserLeadRoute(ctx: RouteContext) {
  return route(async (event) => {
    await enforceClientLimit(ctx, event, 'browser-lead');
    const body = validate(browserLeadSchema, await readJson(event, ctx.config.BODY_LIMIT_BYTES));
    await authorizeBrowserOrigin(ctx.deps(), body.program_id, event.req.headers.get('origin'));
    return recordLead(ctx, body.program_id, body, { browser: true });
  });
}

export const trackBrowserLeadOperation = defineOperation({
  method: 'post',
  path: '/api/v1/track/browser-lead',
  operationId: 'trackBrowserLead',
  tag: 'Tracking',
  security: [],
  summary: "The browser tracker's signup (no key)",
  description: "Keyless: the request's Origin must match the program's domain; the click must belong to the program.",
  headers: { origin: { description: "The page's origin, checked against the program domain", required: true } },
  body: browserLeadSchema,
  responses: { 200: { description: 'Bound', schema: leadResponseSchema } },
  errors: ['forbidden', 'not_found', 'no_attribution', 'rate_limited', 'service_unavailable'],
});
