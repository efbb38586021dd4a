import { redactExpiredWebhookPayloads } from '../core/webhooks/redact-webhook-payloads.ts';
import type { WorkerContext } from './worker-context.ts';

/** Removes buyer personal data from inbox payloads older than WEBHOOK_PAYLOAD_RETENTION_DAYS. Returns how many. */
export function sweepPayloads(w: WorkerContext): Promise<number> {
  return redactExpiredWebhookPayloads(w.deps(), w.config.WEBHOOK_PAYLOAD_RETENTION_DAYS);
}
