import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { WebhookEvent, type IWebhookEvent } from '../entities/webhook-event.ts';
import { toRecord, type StoredRow } from '../shared/records.ts';

/** One inbox row of the program with its verified payload and outcome. @throws AppError `not_found`. */
export async function getWebhookEventDetail(
  deps: CoreDeps,
  programId: number,
  eventId: number,
): Promise<StoredRow<IWebhookEvent>> {
  const row = await deps.em.findOne(WebhookEvent, { id: eventId, program: programId });
  if (!row) throw new AppError('not_found', 'No such webhook event in this program');
  return toRecord(row);
}
