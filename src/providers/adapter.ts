/**
 * The contract every payment-provider adapter fulfils: verify a webhook over its raw bytes, then
 * turn the verified event into core jobs. Adapters are pure apart from crypto: no database, no
 * queue, no HTTP framework ("adapter computes, framework does I/O").
 */
import type { NormalisedEvent } from '../core/jobs/normalised-event.ts';
import type { WebhookProvider } from '../core/shared/vocabulary.ts';

/** Why a webhook was rejected; safe to log (never contains the secret or the signature). */
export type VerifyFailureReason =
  | 'missing_signature_header'
  | 'malformed_signature_header'
  | 'missing_secret'
  | 'signature_mismatch'
  /** The signed fields could be read more than one way (a value hides a field separator). */
  | 'ambiguous_signed_fields'
  | 'timestamp_outside_tolerance'
  | 'invalid_json'
  | 'verification_failed';

export type VerifyResult = { ok: true; event: unknown } | { ok: false; reason: VerifyFailureReason };

export type NormaliseContext = {
  /** The program of the provider connection the webhook arrived on. */
  programId: number;
  /** ISO time the webhook was received; copied onto every job. */
  receivedAt: string;
  /**
   * Connection-level test flag (a Paddle sandbox or Stripe test-mode connection). When true every
   * job is a test job, whatever the payload says. Optional: payload flags are read regardless.
   */
  testConnection?: boolean;
};

export interface ProviderAdapter {
  readonly name: WebhookProvider;
  /** The event types the adapter handles (its dispatch table); any other is `unhandled_event_type`. */
  readonly eventTypes: readonly string[];
  /**
   * Verifies the signature over exactly these raw bytes and parses the body. Never throws for bad
   * input; `now` is the injected clock the timestamp tolerance is measured against.
   */
  verify(rawBody: Uint8Array, headers: Headers, secret: string, now: Date): Promise<VerifyResult>;
  /**
   * Turns a verified event (the parsed JSON `verify` returned, or the same JSON re-parsed from the
   * inbox) into jobs. Never throws: malformed or unwanted events come back with `ignoredReason`.
   */
  normalise(event: unknown, ctx: NormaliseContext): NormalisedEvent;
  /** Fields the provider expects in the webhook's answer besides ours (SePay: `success: true`). */
  readonly answer?: Readonly<Record<string, unknown>>;
}

/** What one event handler decides; the adapter adds the dedupe key and the event type. */
export type EventOutcome = Pick<NormalisedEvent, 'jobs' | 'ignoredReason'>;

/** What a provider's dispatcher hands to the handler of one event type. */
export type EventContext = {
  provider: WebhookProvider;
  programId: number;
  receivedAt: string;
  /** Test event: the payload's own flag or the connection's `testConnection`. */
  test: boolean;
  /** The provider's own event time, ISO; reporting only. */
  occurredAt: string | null;
  /** Metadata carried on the envelope rather than the object (Lemon Squeezy `meta.custom_data`). */
  envelopeMetadata: unknown;
};

/** One handler per provider event type; receives the event's object, never throws. */
export type EventHandler = (object: Record<string, unknown>, ctx: EventContext) => EventOutcome;
