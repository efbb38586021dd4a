import type { H3Event } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/errors.ts';
import { WEBHOOK_PROVIDERS, type WebhookProvider } from '../../core/vocabulary.ts';
import { loadVerificationSecrets, selectUnexpiredSecrets } from '../../core/provider-secrets.ts';
import { storeWebhookEvent } from '../../core/webhook-inbox.ts';
import { verifyWithSecrets } from '../../providers/verify-with-secrets.ts';
import { ignoredReasonInfo } from '../../core/ignored-reasons.ts';
import { buildWebhookJob } from '../../core/jobs/webhook-job.ts';
import { webhookJobOptions } from '../../queue/job-options.ts';
import { readLimited } from '../read-json.ts';
import { enforceClientLimit } from '../client-limit.ts';
import { describeJsonProblem, findUnstorableJson, toStorableJson } from '../../core/storable-json.ts';
import { route } from '../route.ts';
import { MAX_ROW_ID } from '../validate.ts';
import { z } from 'zod';
import { defineOperation } from '../openapi/operation.ts';

const WEBHOOK_BODY_LIMIT = 1_048_576;

/**
 * POST /api/v1/webhooks/:provider/:programId. Verifies the signature over the raw bytes with each
 * unexpired secret of the connection in turn, stores the event in the inbox (unique per
 * provider/program/dedupe key), enqueues its processing and acknowledges at once. No attribution
 * work happens here.
 */
export function webhookRoute(ctx: RouteContext) {
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
    // One context for the request (each `deps()` forks the ORM's).
    const deps = ctx.deps();
    const secrets = await loadVerificationSecrets(deps, programId, provider);
    if (!secrets) throw new AppError('not_found', `${provider} is not connected to program ${programId}`);
    const raw = await readLimited(event, WEBHOOK_BODY_LIMIT);
    const now = ctx.clock();
    const log = ctx.log.child({ provider, programId, reqId: event.context.requestId });
    const adapter = ctx.providers[provider];
    const verified = await verifyWithSecrets(
      adapter,
      raw,
      event.req.headers,
      selectUnexpiredSecrets(secrets, now),
      now,
    );
    if (!verified.ok) {
      log.warn({ reason: verified.reason }, 'webhook signature rejected');
      ctx.metrics.webhooksRejected.inc({ provider });
      throw new AppError('invalid_signature', 'Webhook signature verification failed', { reason: verified.reason });
    }
    // A signed event is the provider's, and it is kept: NUL and lone surrogates (which PostgreSQL
    // cannot store) become U+FFFD before the inbox write. Only nesting past the fixed depth is
    // refused (400), since nothing could walk it safely.
    const problem = findUnstorableJson(verified.event);
    if (problem?.problem === 'too_deep')
      throw new AppError('invalid_request', describeJsonProblem(problem), {
        field: problem.path || null,
        problem: problem.problem,
      });
    const payload = problem ? toStorableJson(verified.event) : verified.event;
    // An event verified by a `test` secret (a sandbox or test-mode endpoint) is test traffic
    // whatever its payload says.
    const normalised = adapter.normalise(payload, {
      programId,
      receivedAt: now.toISOString(),
      testConnection: verified.label === 'test',
    });
    const stored = await storeWebhookEvent(deps, {
      provider,
      programId,
      event: normalised,
      payload,
      receivedAt: now,
    });
    if (stored.status === 'pending') {
      try {
        await ctx.queue.add('webhook', buildWebhookJob(stored.inboxId), webhookJobOptions(ctx.config, stored.inboxId));
      } catch (err) {
        // Stored durably: the inbox sweeper enqueues it once the queue is back.
        log.warn(
          { inboxId: stored.inboxId, err: (err as Error).message },
          'webhook stored but not enqueued; sweeper will retry',
        );
      }
    }
    ctx.metrics.webhooksReceived.inc({ provider, result: stored.duplicate ? 'duplicate' : stored.status });
    log.info(
      {
        inboxId: stored.inboxId,
        secretId: verified.secretId,
        secretLabel: verified.label,
        eventType: normalised.eventType,
        duplicate: stored.duplicate,
        status: stored.status,
        ignored: stored.ignoredReason,
      },
      'webhook received',
    );
    if (stored.ignoredReason) {
      log[ignoredReasonInfo(stored.ignoredReason).level](
        { inboxId: stored.inboxId, eventType: normalised.eventType, reason: stored.ignoredReason },
        'provider event recorded no sale or refund',
      );
    }
    return { received: true, id: stored.inboxId, duplicate: stored.duplicate, status: stored.status };
  });
}

export const webhookResponseSchema = z.strictObject({
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
  security: ['stripeSignature', 'paddleSignature', 'lemonSqueezySignature'],
  summary: 'Receive a payment-provider event',
  description:
    'The signature is checked over the raw bytes with the secret connected to the program. The event is stored in the inbox and acknowledged at once; sales and refunds are applied by a worker with the same rules as the API.',
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
