import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import type { NormalisedEvent } from '../jobs/normalised-event.ts';

export type WebhookEventStatus = 'pending' | 'processed' | 'ignored' | 'failed';

/** Inbox of verified provider webhooks; (provider, program, dedupe key) makes redelivery harmless. */
export const WebhookEvent = defineEntity({
  name: 'WebhookEvent',
  uniques: [{ properties: ['provider', 'program', 'dedupeKey'] }],
  indexes: [
    { properties: ['status', 'receivedAt'] },
    { properties: ['payloadRedactedAt', 'receivedAt'] },
    // The status's ignored events per reason (a reason code, short) from the index alone.
    {
      name: 'webhook_event_ignored_index',
      properties: ['program', 'error', 'receivedAt'],
      where: "status = 'ignored'",
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    provider: p.string(),
    program: () => p.manyToOne(Program).mapToPk(),
    dedupeKey: p.string(),
    eventType: p.string(),
    /** The verified event as parsed from the raw bytes. */
    payload: p.json<unknown>(),
    normalised: p.json<NormalisedEvent>(),
    status: p.string().$type<WebhookEventStatus>().default('pending'),
    /** Per-job outcomes once processed (sale ids, refund statuses, error codes). */
    outcome: p.json<unknown>().nullable(),
    error: p.text().nullable(),
    attempts: p.integer().default(0),
    receivedAt: p.datetime(),
    /**
     * When a replay or the inbox sweeper last handed the row to the queue again; the sweeper measures
     * a row's age from here (else from `receivedAt`), so it never runs a row its replay job holds.
     */
    requeuedAt: p.datetime().nullable(),
    processedAt: p.datetime().nullable(),
    /** When buyer personal data was removed from `payload` (retention sweeper); `null` = not yet. */
    payloadRedactedAt: p.datetime().nullable(),
  },
});
export type IWebhookEvent = InferEntity<typeof WebhookEvent>;
