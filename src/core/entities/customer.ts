import { rollupTriggers } from './daily-rollup.ts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Partner } from './partner.ts';
import { Click } from './click.ts';

/** Binds the merchant's own user id (`customer_key`) to a click and its partner (lead tracking). */
export const Customer = defineEntity({
  name: 'Customer',
  triggers: rollupTriggers('customer'),
  uniques: [{ properties: ['program', 'customerKey'] }],
  indexes: [
    { properties: ['program', 'createdAt'] },
    {
      name: 'customer_provider_customer_id_index',
      properties: ['program', 'providerCustomerId'],
      where: 'provider_customer_id is not null',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    /** Null when the lead was reported with a click id only. */
    customerKey: p.string().nullable(),
    click: () => p.manyToOne(Click).mapToPk().nullable().index(),
    partner: () => p.manyToOne(Partner).mapToPk().nullable(),
    /** Keyed hash (hex) of the normalised email; the address itself is never stored. */
    emailHash: p.string().nullable(),
    /** How `emailHash` was made (EMAIL_HASH_VERSION): 1 plain SHA-256, 2 keyed of the lower-cased address, 3 keyed of the normalised one. */
    emailHashVersion: p.smallint().nullable(),
    /** The lead's email is at a disposable-address domain (fraud-rules.ts); null: no email given. */
    emailDisposable: p.boolean().nullable(),
    eventName: p.string().nullable(),
    /**
     * Bound by a keyless browser lead (any client can send one): a keyed lead for the same
     * `customer_key` replaces the binding, and a sale naming another click follows its own click.
     */
    provisional: p.boolean().default(false),
    /**
     * Set when keyless leads for this `customer_key` named different clicks: the commissions of
     * its sales are held from automatic approval until the advertiser resolves the dispute.
     */
    disputedAt: p.datetime().nullable(),
    /**
     * The payment provider's own customer id (Stripe `cus_…`, Paddle `ctm_…`), kept for a customer
     * brought by an import: the provider's later payments of that customer attribute to its partner.
     */
    providerCustomerId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ICustomer = InferEntity<typeof Customer>;
