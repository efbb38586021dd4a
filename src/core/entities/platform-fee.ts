import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Sale } from './sale.ts';

/** The platform's fee on one live sale, computed on `amount_cents` as sent. */
export const PlatformFee = defineEntity({
  name: 'PlatformFee',
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    sale: () => p.manyToOne(Sale).mapToPk().unique(),
    amountCents: p.bigint('number'),
    currency: p.string().length(3),
    rateBps: p.integer(),
    createdAt: p.datetime(),
  },
});
export type IPlatformFee = InferEntity<typeof PlatformFee>;
