import type { CoreDeps } from './deps.ts';
import { AppError } from './errors.ts';
import { WebhookEvent } from './entities/webhook-event.ts';
import { toRecord, type StoredRecord } from './records.ts';

/** One inbox row of the program with its verified payload and outcome. @throws AppError `not_found`. */
export async function getWebhookEventDetail(deps: CoreDeps, programId: number, eventId: number): Promise<StoredRecord> {
  const row = await deps.em.findOne(WebhookEvent, { id: eventId, program: programId });
  if (!row) throw new AppError('not_found', 'No such webhook event in this program');
  return toRecord(row);
}
