import type { H3Event } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { WEBHOOK_PROVIDERS, type WebhookProvider } from '../../core/shared/vocabulary.ts';
import { receiveWebhook } from '../../core/webhooks/receive-webhook.ts';
import { verifyWithSecrets } from '../../providers/verify-with-secrets.ts';
import { ignoredReasonInfo } from '../../core/webhooks/ignored-reasons.ts';
import { readLimited } from '../read-json.ts';
import { requeueOnReconnect } from '../requeue-on-reconnect.ts';
import { enforceClientLimit } from '../client-limit.ts';
import { route } from '../route.ts';
import { MAX_ROW_ID } from '../validate.ts';
import { z } from 'zod';
import { defineOperation } from '../openapi/operation.ts';

const WEBHOOK_BODY_LIMIT = 1_048_576;

/**
 * POST /api/v1/webhooks/:provider/:programId: one core use-case (`receiveWebhook`: verify over the
 * raw bytes, normalise, store in the inbox, enqueue) with the provider's adapter as its port;
 * acknowledged at once.
 */
export function webhookRoute(ctx: RouteContext) {
  const unqueued = requeueOnReconnect(ctx);
  return route(async (event: H3Event) => {
    const provider = event.context.params?.provider as WebhookProvider;
    const programId = Number(event.context.params?.programId);
    if (
      !(WEBHOOK_PROVIDERS as readonly string[]).includes(provider) ||
      !Number.isSafeInteger(programId) ||
      programId <= 0 ||
      programId > MAX_ROW_ID
    ) {
      throw new AppError('not_found', 'Unknown webhook endpoint');
    }
    await enforceClientLimit(ctx, event, 'webhook');
    const log = ctx.log.child({ provider, programId, reqId: event.context.requestId });
    const adapter = ctx.providers[provider];
    const received = await receiveWebhook(
      ctx.deps(),
      {
        verify: (raw, headers, secrets, now) => verifyWithSecrets(adapter, raw, headers, secrets, now),
        normalise: (payload, c) => adapter.normalise(payload, c),
      },
      {
        provider,
        programId,
        headers: event.req.headers,
        readBody: () => readLimited(event, WEBHOOK_BODY_LIMIT),
        enqueue: (inboxId) => unqueued.enqueue(inboxId),
      },
    );
    if (received.kind === 'rejected') {
      log.warn({ reason: received.reason }, 'webhook signature rejected');
      ctx.metrics.webhooksRejected.inc({ provider });
      throw new AppError('invalid_signature', 'Webhook signature verification failed', { reason: received.reason });
    }
    const { stored, eventType } = received;
    if (received.enqueueError) {
      unqueued.remember(stored.inboxId);
      log.warn(
        { inboxId: stored.inboxId, err: received.enqueueError },
        'webhook stored but not enqueued; enqueued when the queue is back (the sweeper is the backstop)',
      );
    }
    ctx.metrics.webhooksReceived.inc({ provider, result: stored.duplicate ? 'duplicate' : stored.status });
    log.info(
      {
        inboxId: stored.inboxId,
        secretId: received.secretId,
        secretLabel: received.secretLabel,
        eventType,
        duplicate: stored.duplicate,
        status: stored.status,
        ignored: stored.ignoredReason,
      },
      'webhook received',
    );
    if (stored.ignoredReason) {
      log[ignoredReasonInfo(stored.ignoredReason).level](
        { inboxId: stored.inboxId, eventType, reason: stored.ignoredReason },
        'provider event recorded no sale or refund',
      );
    }
    return {
      ...adapter.answer,
      received: true,
      id: stored.inboxId,
      duplicate: stored.duplicate,
      status: stored.status,
    };
  });
}

export const webhookResponseSchema = z.strictObject({
  success: z.literal(true).optional().meta({ description: 'SePay only: the acknowledgement SePay expects' }),
  received: z.literal(true),
  id: z.number().int().meta({ description: 'Inbox row id (the admin API lists and replays rows)' }),
  duplicate: z.boolean().meta({ description: 'A redelivery of an event already stored: nothing changed' }),
  status: z.enum(['pending', 'processed', 'ignored', 'failed']),
});

export const webhookOperation = defineOperation({
  method: 'post',
  path: '/api/v1/webhooks/:provider/:programId',
  operationId: 'receiveProviderWebhook',
  tag: 'Webhooks',
  security: [
    'stripeSignature',
    'paddleSignature',
    'lemonSqueezySignature',
    'standardWebhookSignature',
    'creemSignature',
    'sepaySignature',
    'sepayApiKey',
  ],
  summary: 'Receive a payment-provider event',
  description:
    'The signature is checked over the raw bytes with the secret connected to the program (PayOS: the `signature` inside the body, over its `data`; SePay: its HMAC-SHA256 signature over the timestamp and raw body, or the API key of its `Authorization` header). The event is stored in the inbox and acknowledged at once; sales and refunds are applied by a worker with the same rules as the API.',
  params: { provider: z.enum(WEBHOOK_PROVIDERS), programId: z.number().int().positive() },
  rawBody: "The provider's event exactly as sent (up to 1 MiB)",
  responses: {
    200: {
      description: 'Stored (or a redelivery)',
      schema: webhookResponseSchema,
      example: { received: true, id: 17, duplicate: false, status: 'pending' },
    },
  },
  errors: ['invalid_signature', 'invalid_request', 'not_found', 'payload_too_large', 'rate_limited'],
});
