import { sql } from 'kysely';
import type { CoreDeps } from '../deps.ts';
import { typedSql } from '../db/sql.ts';
import { DAY_MS } from '../deps.ts';
import { WebhookEvent } from '../entities/webhook-event.ts';
import { redactPersonalData } from './redact-personal-data.ts';

/** Rows per statement; a sweep handles at most ROUNDS of them and the next sweep goes on. */
const BATCH = 200;
const ROUNDS = 10;

/**
 * Payload retention: inbox rows received more than `retentionDays` ago lose the buyer's personal
 * data from their raw `payload` (redact-personal-data.ts) and get `payloadRedactedAt`. Only the
 * payload changes: the row's normalised jobs, which processing and replay run (webhook-inbox.ts
 * never reads the payload), stay as they are. Returns how many rows were redacted.
 */
export async function redactExpiredWebhookPayloads(deps: CoreDeps, retentionDays: number): Promise<number> {
  const now = deps.clock();
  const receivedBefore = new Date(now.getTime() - retentionDays * DAY_MS);
  let redacted = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // Outside the identity map: it must not keep every redacted payload of the sweep.
    const em = deps.em;
    const rows = await em.find(
      WebhookEvent,
      { payloadRedactedAt: null, receivedAt: { $lt: receivedBefore } },
      {
        fields: ['id', 'payload'],
        disableIdentityMap: true,
        limit: BATCH,
        orderBy: { id: 'asc' },
      },
    );
    for (const row of rows) {
      // `payload_redacted_at is null`: a concurrent sweep that got there first is not redone.
      await typedSql(em)
        .updateTable('webhook_event')
        .set({
          payload: sql`${JSON.stringify(redactPersonalData(row.payload) ?? null)}::jsonb`,
          payload_redacted_at: now,
        })
        .where('id', '=', row.id)
        .where('payload_redacted_at', 'is', null)
        .execute();
    }
    redacted += rows.length;
    if (rows.length < BATCH) break;
  }
  if (redacted)
    deps.log.info(
      { redacted, receivedBefore: receivedBefore.toISOString() },
      'webhook payloads redacted after the retention period',
    );
  return redacted;
}
