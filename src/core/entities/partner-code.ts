import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import { Partner } from './partner.ts';

/**
 * A coupon or promotion code owned by one partner of a program: a sale that carries it (the sale
 * API's `coupon_code`, or the code or discount id in a provider's payment) is attributed to the
 * partner when no click attributes it, or always under the program's `couponPrecedence` `coupon`
 * (partner-codes.ts).
 */
export const PartnerCode = defineEntity({
  name: 'PartnerCode',
  uniques: [{ properties: ['program', 'codeKey'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    partner: () => p.manyToOne(Partner).mapToPk().index(),
    /** The code as the merchant registered it (what the customer types; shown to the partner). */
    code: p.string(),
    /** `code` upper-cased: codes match whatever the case the customer typed. */
    codeKey: p.string(),
    /**
     * The payment providers' own ids of the discount behind this code (Stripe promotion code
     * `promo_…` or coupon id, Paddle `dsc_…`, Polar/Dodo/Creem discount ids), matched exactly:
     * some payloads carry only the id. Never shown in the partner portal.
     */
    providerIds: p.array().default([]),
    /** Set when the merchant retired the code: sales carrying it are no longer attributed by it. */
    disabledAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type IPartnerCode = InferEntity<typeof PartnerCode>;
