import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Partner } from './partner.ts';
import { Click } from './click.ts';

/** Binds the merchant's own user id (`customer_key`) to a click and its partner (lead tracking). */
export const Customer = defineEntity({
  name: 'Customer',
  uniques: [{ properties: ['program', 'customerKey'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    /** Null when the lead was reported with a click id only. */
    customerKey: p.string().nullable(),
    click: () => p.manyToOne(Click).mapToPk().nullable().index(),
    partner: () => p.manyToOne(Partner).mapToPk().nullable(),
    /** SHA-256 hex of the normalised email; the address itself is never stored. */
    emailHash: p.string().nullable(),
    eventName: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ICustomer = InferEntity<typeof Customer>;
