import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

export type ApiKeyMode = 'live' | 'test';
export type ApiKeyStatus = 'active' | 'retired';

/** A program API key. Only the SHA-256 hash is stored; the key itself is shown once. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    mode: p.string().$type<ApiKeyMode>(),
    keyHash: p.string().unique(),
    /** First characters of the key, safe to display (`trk_live_AbCd`). */
    prefix: p.string(),
    status: p.string().$type<ApiKeyStatus>().default('active'),
    /** A retired key with a future deadline is still accepted (with a warning) until then. */
    rotateBy: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    retiredAt: p.datetime().nullable(),
  },
});
export type IApiKey = InferEntity<typeof ApiKey>;
