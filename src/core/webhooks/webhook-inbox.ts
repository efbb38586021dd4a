import { sql } from 'kysely';
import type { CoreDeps, InboxWrite, InboxWriter } from '../deps.ts';
import { sha256Hex } from '../shared/crypto.ts';
import { isDatabaseTimeout, isUniqueViolation } from '../db/data-error.ts';
import type { NormalisedEvent } from '../jobs/normalised-event.ts';
import type { WebhookProvider } from '../shared/vocabulary.ts';
import { AppError } from '../shared/errors.ts';
import { WebhookEvent, type IWebhookEvent } from '../entities/webhook-event.ts';
import { typedSql } from '../db/sql.ts';
import { createMicroBatcher, settleEach, type Settled } from '../shared/micro-batch.ts';
import type { NewInboxRow, StoredWebhook } from '../ports.ts';

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

export type WebhookToStore = {
  provider: WebhookProvider;
  programId: number;
  event: NormalisedEvent;
  payload: unknown;
  receivedAt: Date;
};

/**
 * Persists a verified webhook in the inbox. A redelivery (same provider, program and dedupe key)
 * returns the first row with `duplicate: true` and changes nothing. Events acknowledged at the
 * same moment (concurrent requests) are inserted by one statement (see `insertRows`).
 */
export async function storeWebhookEvent(deps: CoreDeps, input: WebhookToStore): Promise<StoredWebhook> {
  return deps.caches.inboxWriter({ deps, row: inboxRowOf(input) });
}

function inboxRowOf(input: WebhookToStore): NewInboxRow {
  const unstorable = input.event.ignoredReason ? null : unstorableJobsReason(input.event);
  const event: NormalisedEvent = {
    ...input.event,
    dedupeKey: storableDedupeKey(input.event.dedupeKey),
    eventType: input.event.eventType.slice(0, ID_COLUMN_CHARS),
    ...(unstorable ? { jobs: [], ignoredReason: unstorable } : {}),
  };
  return {
    provider: input.provider,
    programId: input.programId,
    dedupeKey: event.dedupeKey,
    eventType: event.eventType,
    // Serialised here, not by `em.insert`: the ORM walks every key of the two JSON documents
    // before writing them, which was a third of the acknowledgement's CPU (`npm run bench`).
    payload: JSON.stringify(input.payload ?? null),
    normalised: JSON.stringify(event),
    status: event.ignoredReason ? 'ignored' : 'pending',
    ignoredReason: event.ignoredReason ?? null,
    receivedAt: input.receivedAt,
  };
}

/** The inbox columns of a new row (the documents already serialised, cast to jsonb in SQL). */
const insertValues = (r: NewInboxRow) => ({
  provider: r.provider,
  program_id: r.programId,
  dedupe_key: r.dedupeKey,
  event_type: r.eventType,
  payload: sql<unknown>`${r.payload}::jsonb`,
  normalised: sql<IWebhookEvent['normalised']>`${r.normalised}::jsonb`,
  status: r.status,
  outcome: null,
  error: r.ignoredReason,
  attempts: 0,
  received_at: r.receivedAt,
  processed_at: r.status === 'ignored' ? r.receivedAt : null,
});
const stored = (r: NewInboxRow, inboxId: number): StoredWebhook => ({
  inboxId,
  duplicate: false,
  status: r.status,
  ignoredReason: r.ignoredReason,
});

/** Batches the inbox rows that arrive together into one insert (one per app context: `CoreCaches`). */
export function createInboxWriter(): InboxWriter {
  return createMicroBatcher<InboxWrite, StoredWebhook>(insertRows, { maxSize: 64, lingerMs: 0 });
}

/**
 * Inserts first, no lookup: redeliveries are rare and the unique key decides. Several rows go in
 * one statement that skips those whose key exists (`on conflict do nothing`); a skipped row is a
 * redelivery, answered with the first row. If that statement fails, each row is inserted on its
 * own so only the offending one fails (unless the database did not answer in time: then all do).
 */
async function insertRows(items: InboxWrite[]): Promise<Array<Settled<StoredWebhook>>> {
  if (items.length === 1) return settleEach(items, insertOne);
  const rows = items.map((i) => i.row);
  let inserted: Array<{ id: number; provider: string; program_id: number; dedupe_key: string }>;
  try {
    inserted = await typedSql(items[0]!.deps.em)
      .insertInto('webhook_event')
      .values(rows.map(insertValues))
      .onConflict((oc) => oc.columns(['provider', 'program_id', 'dedupe_key']).doNothing())
      .returning(['id', 'provider', 'program_id', 'dedupe_key'])
      .execute();
  } catch (err) {
    // A database that did not answer in time would not answer each row either: the batch fails
    // within the requests' bound (503; the providers retry), not once per row after it.
    if (isDatabaseTimeout(err)) throw err;
    return settleEach(items, insertOne);
  }
  const keyOf = (provider: string, programId: number, dedupeKey: string) =>
    JSON.stringify([provider, Number(programId), dedupeKey]);
  const ids = new Map(inserted.map((r) => [keyOf(r.provider, r.program_id, r.dedupe_key), r.id]));
  return settleEach(items, async ({ deps, row }) => {
    const key = keyOf(row.provider, row.programId, row.dedupeKey);
    const id = ids.get(key);
    if (id === undefined) return findFirst(deps, row);
    // A second copy of the same event in this batch is a redelivery of the first.
    ids.delete(key);
    return stored(row, id);
  });
}

async function insertOne({ deps, row }: InboxWrite): Promise<StoredWebhook> {
  try {
    const r = await typedSql(deps.em)
      .insertInto('webhook_event')
      .values(insertValues(row))
      .returning('id')
      .executeTakeFirstOrThrow();
    return stored(row, r.id);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return findFirst(deps, row);
  }
}

async function findFirst(deps: CoreDeps, row: NewInboxRow): Promise<StoredWebhook> {
  const key = { provider: row.provider, program: row.programId, dedupeKey: row.dedupeKey };
  const first = await deps.em.findOneOrFail(WebhookEvent, key, { fields: ['id', 'status'] });
  return { inboxId: first.id, duplicate: true, status: first.status };
}

/** After the last retry: the row stays visible as failed (and can be replayed). */
export async function markWebhookFailed(deps: CoreDeps, inboxId: number, error: string): Promise<void> {
  await deps.em.nativeUpdate(WebhookEvent, { id: inboxId, status: 'pending' }, { status: 'failed', error });
}

/**
 * Puts failed (or all of a program's failed) rows back to pending for a replay, stamped as requeued
 * now so the sweeper leaves them to the replay's job; returns their ids (none for a row by id that
 * was already processed, or ignored with nothing to run).
 */
export async function resetWebhookEventsForReplay(
  deps: CoreDeps,
  programId: number,
  inboxId?: number,
): Promise<number[]> {
  const rows = await deps.em.find(
    WebhookEvent,
    inboxId ? { id: inboxId, program: programId } : { program: programId, status: 'failed' },
    { fields: ['id', 'status', 'normalised'] },
  );
  if (inboxId && !rows.length) throw new AppError('not_found', 'No such webhook event in this program');
  // An event ignored while running its jobs (`unknown_customer` before the lead was tracked...)
  // can be replayed by id; one ignored while normalising has no jobs to run. A processed event is
  // left as it is: running it again changes no money but would overwrite its recorded outcome.
  const replayable = (r: (typeof rows)[number]) =>
    r.status === 'ignored' ? r.normalised.jobs.length > 0 : r.status !== 'processed';
  const ids = rows.filter(replayable).map((r) => r.id);
  if (ids.length) await markWebhooksRequeued(deps, ids, { status: 'pending' });
  return ids;
}

/** Stamps rows as handed to the queue again now (replay, sweep): the sweeper's clock restarts. */
export async function markWebhooksRequeued(
  deps: CoreDeps,
  ids: number[],
  set: { status?: 'pending' } = {},
): Promise<void> {
  await deps.em.nativeUpdate(WebhookEvent, { id: { $in: ids } }, { ...set, requeuedAt: deps.clock() });
}

/**
 * Pending rows the sweeper should (re-)enqueue: never run and older than `neverRunBefore`
 * (acknowledged, but the enqueue failed), or already tried and still pending past `stuckBefore`
 * (longer than every retry could take: the job was lost, or its failure was never recorded). Age
 * counts from the last requeue (replay, sweep) when there was one, else from receipt.
 */
const queuedBefore = (at: Date) => ({
  $or: [{ requeuedAt: null, receivedAt: { $lte: at } }, { requeuedAt: { $lte: at } }],
});

export async function findStalePendingWebhooks(
  deps: CoreDeps,
  cutoffs: { neverRunBefore: Date; stuckBefore: Date },
  limit = 500,
): Promise<Array<{ id: number; attempts: number }>> {
  const rows = await deps.em.find(
    WebhookEvent,
    {
      status: 'pending',
      $or: [
        { attempts: 0, ...queuedBefore(cutoffs.neverRunBefore) },
        { attempts: { $gt: 0 }, ...queuedBefore(cutoffs.stuckBefore) },
      ],
    },
    { fields: ['id', 'attempts'], limit, orderBy: { id: 'asc' } },
  );
  return rows.map((r) => ({ id: r.id, attempts: r.attempts }));
}
