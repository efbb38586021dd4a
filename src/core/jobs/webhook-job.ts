import { z } from 'zod';

/** Processes one stored provider webhook (inbox row): runs its normalised sale/refund jobs. */
export const webhookJobSchema = z.object({ kind: z.literal('webhook'), inboxId: z.number().int().positive() });
export type WebhookJob = z.infer<typeof webhookJobSchema>;

export function buildWebhookJob(inboxId: number): WebhookJob {
  return { kind: 'webhook', inboxId };
}
