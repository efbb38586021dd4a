import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import type { OutboundEventType } from '../shared/vocabulary.ts';

/**
 * A merchant's endpoint receiving the program's outbound events (Standard Webhooks). It receives
 * an event while `enabled` and not `disabledAt` (set automatically after a run of failures).
 * Secrets are HMAC keys (`whsec_…`), needed in clear to sign: stored sealed (`v1:…`,
 * outbound/endpoint-secrets.ts; a row from before sealing may hold the plaintext until
 * `secrets:reseal`), hidden from serialisation, returned once when created, never logged. During a
 * rotation `previousSecret` signs beside `secret` until it is expired.
 */
export const EventEndpoint = defineEntity({
  name: 'EventEndpoint',
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    url: p.text(),
    /** The event types it receives; null: every type. */
    eventTypes: p.json<OutboundEventType[]>().nullable(),
    enabled: p.boolean().default(true),
    secret: p.text().hidden(),
    previousSecret: p.text().hidden().nullable(),
    /** Failed attempts since the last success; at the limit the endpoint is disabled. */
    consecutiveFailures: p.integer().default(0),
    /** Set when the endpoint was disabled after too many failures (cleared when re-enabled). */
    disabledAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type IEventEndpoint = InferEntity<typeof EventEndpoint>;
