import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import type { WebhookProvider } from '../vocabulary.ts';

/** A connected payment provider; its signing secrets are `ProviderSecret` rows. */
export const ProviderConnection = defineEntity({
  name: 'ProviderConnection',
  uniques: [{ properties: ['program', 'provider'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    provider: p.string().$type<WebhookProvider>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type IProviderConnection = InferEntity<typeof ProviderConnection>;
