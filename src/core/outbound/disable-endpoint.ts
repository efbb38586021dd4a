import { sql } from 'kysely';
import type { CoreDeps } from '../deps.ts';
import { typedSql } from '../db/sql.ts';

/**
 * Counts a failed attempt against the endpoint; at `limit` consecutive failures disables it
 * (`disabled_at`) and writes the advertiser's notification in the same transaction (the
 * notification outbox). Returns that notification's id (to deliver after commit), else null.
 */
export async function disableAfterFailures(
  deps: CoreDeps,
  programId: number,
  endpointId: number,
  limit: number,
  reason: string,
): Promise<number | null> {
  const result = await deps.em.transactional(async (em) => {
    const db = typedSql(em);
    const counted = await db
      .updateTable('event_endpoint')
      .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1) }))
      .where('id', '=', endpointId)
      .returning(['consecutive_failures', 'disabled_at', 'url'])
      .executeTakeFirst();
    if (!counted || counted.disabled_at || counted.consecutive_failures < limit) return null;
    const at = deps.clock();
    await db
      .updateTable('event_endpoint')
      .set({ disabled_at: at, updated_at: at })
      .where('id', '=', endpointId)
      .execute();
    const note = await db
      .insertInto('notification')
      .values({
        program_id: programId,
        kind: 'advertiser_event_endpoint_disabled',
        partner_id: null,
        commission_id: null,
        payload: sql<Record<string, unknown>>`${JSON.stringify({
          endpoint_id: endpointId,
          url: counted.url,
          consecutive_failures: counted.consecutive_failures,
          last_error: reason,
          disabled_at: at.toISOString(),
        })}::jsonb`,
        created_at: at,
        sweeps: 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { notificationId: note.id, failures: counted.consecutive_failures };
  });
  if (!result) return null;
  deps.caches.eventEndpoints.delete(programId);
  deps.log.warn(
    { programId, endpointId, consecutiveFailures: result.failures },
    'outbound event endpoint disabled after consecutive failures',
  );
  return result.notificationId;
}
