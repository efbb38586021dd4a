import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import type { ProviderSecretLabel, WebhookProvider } from '../shared/vocabulary.ts';
import type { NormalisedEvent } from '../jobs/normalised-event.ts';
import { loadVerificationSecrets, selectUnexpiredSecrets } from '../integrations/provider-secrets.ts';
import { type VerificationSecret, type StoredWebhook } from '../ports.ts';
import { describeJsonProblem, findUnstorableJson, toStorableJson } from '../shared/storable-json.ts';
import { storeWebhookEvent } from './webhook-inbox.ts';

/**
 * What receiving a delivery needs of its provider, behind a port so that core imports no provider
 * code: the HTTP layer wires it to the provider's adapter (src/providers).
 */
export type WebhookProviderPort = {
  /** Checks the signature over exactly these bytes with each secret in turn; never throws for bad input. */
  verify(
    raw: Uint8Array,
    headers: Headers,
    secrets: readonly VerificationSecret[],
    now: Date,
  ): Promise<
    { ok: true; event: unknown; secretId: number; label: ProviderSecretLabel } | { ok: false; reason: string }
  >;
  normalise(payload: unknown, ctx: { programId: number; receivedAt: string; testConnection: boolean }): NormalisedEvent;
};

export type WebhookDelivery = {
  provider: WebhookProvider;
  programId: number;
  headers: Headers;
  /** Reads the body (bounded by the caller) only once the connection is known. */
  readBody(): Promise<Uint8Array>;
  /** Puts the stored row on the queue; a failure leaves it to the inbox sweeper. */
  enqueue(inboxId: number): Promise<void>;
};

export type ReceivedWebhook =
  | { kind: 'rejected'; reason: string }
  | {
      kind: 'stored';
      stored: StoredWebhook;
      eventType: string;
      secretId: number;
      secretLabel: ProviderSecretLabel;
      /** The queue refused the row (it stays pending; the sweeper enqueues it). */
      enqueueError: string | null;
    };

/**
 * Receives one provider delivery: verifies it with the connection's unexpired secrets, normalises
 * it, stores it in the inbox (unique per provider/program/dedupe key) and enqueues its processing.
 * No attribution work happens here.
 * @throws AppError `not_found` (provider not connected), `invalid_request` (nesting too deep to walk).
 */
export async function receiveWebhook(
  deps: CoreDeps,
  port: WebhookProviderPort,
  d: WebhookDelivery,
): Promise<ReceivedWebhook> {
  const secrets = await loadVerificationSecrets(deps, d.programId, d.provider);
  if (!secrets) throw new AppError('not_found', `${d.provider} is not connected to program ${d.programId}`);
  const raw = await d.readBody();
  const now = deps.clock();
  const verified = await port.verify(raw, d.headers, selectUnexpiredSecrets(secrets, now), now);
  if (!verified.ok) return { kind: 'rejected', reason: verified.reason };
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
  const normalised = port.normalise(payload, {
    programId: d.programId,
    receivedAt: now.toISOString(),
    testConnection: verified.label === 'test',
  });
  const stored = await storeWebhookEvent(deps, {
    provider: d.provider,
    programId: d.programId,
    event: normalised,
    payload,
    receivedAt: now,
  });
  let enqueueError: string | null = null;
  if (stored.status === 'pending') {
    // Stored durably first: if the queue is down, the inbox sweeper enqueues it once it is back.
    await d.enqueue(stored.inboxId).catch((err: Error) => {
      enqueueError = err.message;
    });
  }
  return {
    kind: 'stored',
    stored,
    eventType: normalised.eventType,
    secretId: verified.secretId,
    secretLabel: verified.label,
    enqueueError,
  };
}
