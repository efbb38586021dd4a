import type { CoreDeps } from '../deps.ts';
import { typedSql } from '../db/sql.ts';
import { signEvent } from './sign-event.ts';
import { disableAfterFailures } from './disable-endpoint.ts';
import { openEndpointSecret } from './endpoint-secrets.ts';
import { OutboundTargetRefused } from './outbound-target.ts';

/** What a merchant's endpoint answered (any status); a network error or timeout is thrown instead. */
export type EventResponse = { status: number; body: string };
/**
 * Sends one signed event (injected: the worker's guarded HTTP client with a timeout). A destination
 * the URL guard refuses throws `OutboundTargetRefused` before any connection is made.
 */
export type EventPoster = (req: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}) => Promise<EventResponse>;

export type EventAttemptOutcome =
  | { kind: 'delivered' | 'already_delivered' | 'missing' | 'endpoint_inactive' }
  | { kind: 'failed' | 'refused'; reason: string; notificationId: number | null };

/** What is kept of an endpoint's answer: its first 256 bytes (UTF-8), no more. */
export const RESPONSE_EXCERPT_BYTES = 256;

/**
 * The stored excerpt of an answer or an error: at most RESPONSE_EXCERPT_BYTES of UTF-8, cut at a
 * character boundary; NUL (which a PostgreSQL text column cannot hold) becomes U+FFFD.
 */
export function excerptOf(text: string): string {
  const bytes = new TextEncoder().encode(text.replaceAll('\0', '\uFFFD'));
  // `stream: true` holds back a character cut in half instead of decoding it as U+FFFD.
  return new TextDecoder().decode(bytes.subarray(0, RESPONSE_EXCERPT_BYTES), { stream: true });
}

export type AttemptOptions = {
  timeoutMs: number;
  /** Consecutive failed attempts that disable the endpoint. */
  disableAfter: number;
  /** The job's last attempt: a failure leaves the delivery `failed` (replay sends it again). */
  final: boolean;
};

/**
 * One attempt at an outbound event delivery (at least once): signs the stored payload with the
 * endpoint's active secrets (opened from their sealed form), POSTs it, records the attempt
 * (status code, an excerpt of the answer) and the endpoint's run of failures, which disables it
 * at `disableAfter`. No transaction or lock is held across the request. A 2xx is success;
 * anything else, a network error or the timeout is a failure the queue retries. A destination the
 * URL guard refuses (`refused`, nothing sent) fails the delivery at once: retrying cannot help.
 */
export async function attemptEventDelivery(
  deps: CoreDeps,
  post: EventPoster,
  deliveryId: number,
  o: AttemptOptions,
): Promise<EventAttemptOutcome> {
  const db = typedSql(deps.em);
  const row = await db
    .selectFrom('event_delivery as d')
    .innerJoin('event_endpoint as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.program_id',
      'd.event_id',
      'd.payload',
      'd.status',
      'e.id as endpoint_id',
      'e.url',
      'e.enabled',
      'e.disabled_at',
      'e.secret',
      'e.previous_secret',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
  if (!row) return { kind: 'missing' };
  if (row.status === 'delivered') return { kind: 'already_delivered' };
  if (!row.enabled || row.disabled_at) {
    await db
      .updateTable('event_delivery')
      // Not attempted: the last attempt's answer stays (the endpoint's `disabled_at` says why).
      .set({ status: 'failed' })
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .execute();
    return { kind: 'endpoint_inactive' };
  }
  const log = { programId: row.program_id, deliveryId, endpointId: row.endpoint_id, eventId: row.event_id };
  // Opened only here, to sign. One that cannot be opened throws: the job is retried, no failure counted.
  let secrets: string[];
  try {
    secrets = [row.secret, ...(row.previous_secret ? [row.previous_secret] : [])].map((s) =>
      openEndpointSecret(deps.sealer, row.endpoint_id, s),
    );
  } catch (err) {
    deps.log.error(
      { ...log, err: (err as Error).message },
      'outbound event not sent: its signing secret cannot be opened',
    );
    throw err;
  }
  const headers = {
    'content-type': 'application/json',
    ...signEvent(secrets, row.event_id, deps.clock(), row.payload),
  };
  let res: EventResponse | null = null;
  let error: string | null = null;
  let refused: string | null = null;
  try {
    res = await post({ url: row.url, headers, body: row.payload, timeoutMs: o.timeoutMs });
  } catch (err) {
    if (err instanceof OutboundTargetRefused) refused = err.reason;
    else error = err instanceof Error ? err.message : String(err);
  }
  const ok = res !== null && res.status >= 200 && res.status < 300;
  const done = deps.clock();
  await db
    .updateTable('event_delivery')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      last_status_code: res?.status ?? null,
      last_response: excerptOf(res ? res.body : refused ? `refused: ${refused}` : `error: ${error}`),
      last_attempt_at: done,
      status: ok ? 'delivered' : o.final || refused ? 'failed' : 'pending',
      delivered_at: ok ? done : null,
    }))
    .where('id', '=', deliveryId)
    .where('status', '!=', 'delivered')
    .execute();
  if (ok) {
    await db
      .updateTable('event_endpoint')
      .set({ consecutive_failures: 0 })
      .where('id', '=', row.endpoint_id)
      .where('consecutive_failures', '>', 0)
      .execute();
    deps.log.info({ ...log, status: res!.status }, 'outbound event delivered');
    return { kind: 'delivered' };
  }
  const reason = res
    ? `endpoint answered ${res.status}`
    : refused
      ? `refused by the URL guard: ${refused}`
      : `request failed: ${error}`;
  const final = o.final || refused !== null;
  deps.log.warn({ ...log, status: res?.status ?? null, err: reason, final }, 'outbound event attempt failed');
  const notificationId = await disableAfterFailures(deps, row.program_id, row.endpoint_id, o.disableAfter, reason);
  return { kind: refused ? 'refused' : 'failed', reason, notificationId };
}
