import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import type { SaleJob } from '../../core/jobs.ts';
import type { SaleResult } from '../../core/record-sale.ts';
import { authenticate, enforceRateLimit } from '../auth.ts';
import { checkBrowserOrigin } from '../browser-origin.ts';
import { readJson } from '../read-json.ts';
import { enforceClientLimit } from '../client-limit.ts';
import { route, runJob } from '../route.ts';
import { validate, rowId } from '../validate.ts';
import { renderSale } from './track-sale.ts';

export const testEventSchema = z.strictObject({
  program_id: rowId.optional(),
  data: z.record(z.string(), z.unknown()).nullable().optional(),
});

/**
 * POST /api/v1/track/test: a test event (tracker `trackTest`, CLI `test-event`). Keyless from the
 * browser (program id + Origin check) or with a key; always test traffic, never production data.
 */
export function trackTestRoute(ctx: AppContext) {
  return route(ctx, async (event) => {
    const keyed = event.req.headers.has('authorization');
    const auth = keyed ? await authenticate(ctx, event) : null;
    if (auth) await enforceRateLimit(ctx, auth);
    else await enforceClientLimit(ctx, event, 'browser-test');
    const body = validate(testEventSchema, await readJson(event, ctx.config.BODY_LIMIT_BYTES));
    const programId = auth ? auth.programId : (await checkBrowserOrigin(ctx, event, body.program_id ?? 0)).id;
    return recordTestEvent(ctx, programId, body.data ?? null);
  });
}

/** Records test traffic (a test event row only) and renders the spec's test-mode response. */
export async function recordTestEvent(ctx: AppContext, programId: number, data: Record<string, unknown> | null) {
  const job: SaleJob = {
    kind: 'sale', programId, test: true, transactionId: null, amountCents: null, taxCents: null, currency: 'USD',
    saleType: 'payment', lineItems: null, isRecurring: false, subscriptionId: null, subscriptionInterval: null,
    productId: null, occurredAt: null, provider: null, providerPaymentId: null, customerKey: null, clickId: null,
    visitorId: null, bindCustomer: false, additionalData: data, receivedAt: ctx.clock().toISOString(),
  };
  const r = renderSale((await runJob(ctx, job)) as SaleResult);
  return { ...r, message: 'Test event recorded; production data was not changed' };
}
