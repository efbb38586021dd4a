import type { CoreDeps } from './deps.ts';
import { sha256Hex } from './crypto.ts';
import { isUniqueViolation } from './data-error.ts';
import type { NormalisedEvent } from './jobs/normalised-event.ts';
import type { WebhookProvider } from './vocabulary.ts';
import { AppError } from './errors.ts';
import { WebhookEvent, type WebhookEventStatus } from './entities/webhook-event.ts';

/** Width of the inbox's and the jobs' identifier columns (varchar(255)). */
const ID_COLUMN_CHARS = 255;

/**
 * Over-long provider ids still deduplicate: a longer key is replaced by its digest (unique in
 * practice, stable across redeliveries), never truncated into a collision with another event.
 */
export function storableDedupeKey(key: string): string {
  return key.length <= ID_COLUMN_CHARS ? key : `sha256-${sha256Hex(key)}`;
}

/**
 * Why a signed event's jobs could not be stored (an id or a metadata value longer than its
 * column), or null. Such an event is kept in the inbox as `ignored` with this reason: retrying
 * would fail the same way forever.
 */
export function unstorableJobsReason(event: NormalisedEvent): string | null {
  for (const job of event.jobs) {
    for (const [field, value] of Object.entries(job)) {
      if (field !== 'refundReason' && typeof value === 'string' && value.length > ID_COLUMN_CHARS) {
        return `unstorable_${field}: longer than ${ID_COLUMN_CHARS} characters`;
      }
    }
  }
  return null;
}

export type StoredWebhook = {
  inboxId: number;
  duplicate: boolean;
  status: WebhookEventStatus;
  ignoredReason?: string | null;
};

/**
 * Persists a verified webhook in the inbox. A redelivery (same provider, program and dedupe key)
 * returns the first row with `duplicate: true` and changes nothing.
 */
export async function storeWebhookEvent(
  deps: CoreDeps,
  input: {
    provider: WebhookProvider;
    programId: number;
    event: NormalisedEvent;
    payload: unknown;
    receivedAt: Date;
  },
): Promise<StoredWebhook> {
  const unstorable = input.event.ignoredReason ? null : unstorableJobsReason(input.event);
  const event: NormalisedEvent = {
    ...input.event,
    dedupeKey: storableDedupeKey(input.event.dedupeKey),
    eventType: input.event.eventType.slice(0, ID_COLUMN_CHARS),
    ...(unstorable ? { jobs: [], ignoredReason: unstorable } : {}),
  };
  const key = { provider: input.provider, program: input.programId, dedupeKey: event.dedupeKey };
  const status: WebhookEventStatus = event.ignoredReason ? 'ignored' : 'pending';
  // Insert first, no lookup: redeliveries are rare and the unique key decides. A plain statement,
  // not `em.insert`: the ORM walks every key of the two JSON documents before writing them, which
  // was a third of the acknowledgement's CPU (the webhook hot path, see `npm run bench`).
  try {
    const [row] = await deps.em.fork().execute<Array<{ id: number }>>(
      `insert into webhook_event (provider, program_id, dedupe_key, event_type, payload, normalised, status, outcome, error, attempts, received_at, processed_at)
       values (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, null, ?, 0, ?, ?) returning id`,
      [
        input.provider,
        input.programId,
        event.dedupeKey,
        event.eventType,
        JSON.stringify(input.payload ?? null),
        JSON.stringify(event),
        status,
        event.ignoredReason ?? null,
        input.receivedAt,
        status === 'ignored' ? input.receivedAt : null,
      ],
    );
    return { inboxId: row!.id, duplicate: false, status, ignoredReason: event.ignoredReason };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const first = await deps.em.fork().findOneOrFail(WebhookEvent, key, { fields: ['id', 'status'] });
    return { inboxId: first.id, duplicate: true, status: first.status };
  }
}

/** After the last retry: the row stays visible as failed (and can be replayed). */
export async function markWebhookFailed(deps: CoreDeps, inboxId: number, error: string): Promise<void> {
  await deps.em.fork().nativeUpdate(WebhookEvent, { id: inboxId, status: 'pending' }, { status: 'failed', error });
}

/** Puts failed (or all of a program's failed) rows back to pending for a replay; returns their ids. */
export async function resetWebhookEventsForReplay(
  deps: CoreDeps,
  programId: number,
  inboxId?: number,
): Promise<number[]> {
  const em = deps.em.fork();
  const rows = await em.find(
    WebhookEvent,
    inboxId ? { id: inboxId, program: programId } : { program: programId, status: 'failed' },
    { fields: ['id', 'status', 'normalised'] },
  );
  if (inboxId && !rows.length) throw new AppError('not_found', 'No such webhook event in this program');
  // An event ignored while running its jobs (`unknown_customer` before the lead was tracked...)
  // can be replayed by id; one ignored while normalising has no jobs to run.
  for (const r of rows) if (r.status !== 'ignored' || r.normalised.jobs.length > 0) r.status = 'pending';
  await em.flush();
  return rows.filter((r) => r.status === 'pending').map((r) => r.id);
}

/**
 * Pending rows the sweeper should (re-)enqueue: never run and older than `neverRunBefore`
 * (acknowledged, but the enqueue failed), or already tried and still pending past `stuckBefore`
 * (longer than every retry could take: the job was lost, or its failure was never recorded).
 */
export async function findStalePendingWebhooks(
  deps: CoreDeps,
  cutoffs: { neverRunBefore: Date; stuckBefore: Date },
  limit = 500,
): Promise<Array<{ id: number; attempts: number }>> {
  const rows = await deps.em.fork().find(
    WebhookEvent,
    {
      status: 'pending',
      $or: [
        { attempts: 0, receivedAt: { $lte: cutoffs.neverRunBefore } },
        { attempts: { $gt: 0 }, receivedAt: { $lte: cutoffs.stuckBefore } },
      ],
    },
    { fields: ['id', 'attempts'], limit, orderBy: { id: 'asc' } },
  );
  return rows.map((r) => ({ id: r.id, attempts: r.attempts }));
}
