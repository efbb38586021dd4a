import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One row per database, written by its first migration: `nonce` is random per database, so queue
 * job ids built from row ids (`notify-<nonce>-<id>`) never collide with jobs of an earlier database
 * that reused the same queue prefix.
 */
export const ServiceInstance = defineEntity({
  name: 'ServiceInstance',
  properties: {
    id: p.integer().primary().autoincrement(false),
    nonce: p.string().length(16),
    /** Key of the lead email hashes when EMAIL_HASH_SECRET is not set (generated on first start). */
    emailHashSecret: p.string().nullable(),
    /** The last ledger line the scheduled checkpoint sweep looked at (statement-checkpoints.ts). */
    statementSweptEntryId: p.integer().default(0),
    /** When the scheduled checkpoint sweep last ran. */
    statementSweptAt: p.datetime().nullable(),
  },
});
export type IServiceInstance = InferEntity<typeof ServiceInstance>;
