import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import type { WebhookProvider } from '../shared/vocabulary.ts';

/**
 * A connected payment provider; its signing secrets are `ProviderSecret` rows. `apiKeySealed`: the
 * provider's API key for the calls the service makes to it (Lemon Squeezy's discount redemptions),
 * sealed (sealed-secrets.ts), hidden from serialisation, never returned or logged; `apiKeyHint` is
 * all an API response shows of it.
 */
export const ProviderConnection = defineEntity({
  name: 'ProviderConnection',
  uniques: [{ properties: ['program', 'provider'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    provider: p.string().$type<WebhookProvider>(),
    apiKeySealed: p.text().nullable().hidden(),
    apiKeyHint: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type IProviderConnection = InferEntity<typeof ProviderConnection>;
