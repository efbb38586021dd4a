import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ProviderConnection } from './provider-connection.ts';
import type { ProviderSecretLabel } from '../shared/vocabulary.ts';

/**
 * One signing secret of a provider connection. A connection holds several (live and test side by
 * side, old and new during a rotation); each is tried in turn at verification. The secret itself
 * is needed in clear to compute HMACs: it is hidden from serialisation, never returned by any API
 * and never logged.
 */
export const ProviderSecret = defineEntity({
  name: 'ProviderSecret',
  properties: {
    id: p.integer().primary().autoincrement(),
    connection: () => p.manyToOne(ProviderConnection).mapToPk().index(),
    label: p.string().$type<ProviderSecretLabel>(),
    secret: p.text().hidden(),
    createdAt: p.datetime(),
    /** From this instant the secret no longer verifies (a rotation's overlap ends); null: never. */
    expiresAt: p.datetime().nullable(),
  },
});
export type IProviderSecret = InferEntity<typeof ProviderSecret>;
