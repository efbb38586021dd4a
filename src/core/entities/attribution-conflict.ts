import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

/**
 * - `lead_click_mismatch`: a keyless lead named another click for a provisionally bound customer
 *   (the customer is marked disputed).
 * - `sale_click_mismatch`: a sale named a click other than the customer's provisional one; the
 *   sale's own click was credited.
 */
export type AttributionConflictKind = 'lead_click_mismatch' | 'sale_click_mismatch';

/** Visible to the advertiser (admin list `attribution-conflicts`, plus a notification). */
export const AttributionConflict = defineEntity({
  name: 'AttributionConflict',
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    kind: p.string().$type<AttributionConflictKind>(),
    customerId: p.integer().nullable(),
    customerKey: p.string().nullable(),
    /** The click the customer was bound to when the conflict arose. */
    boundClickId: p.string().nullable(),
    /** The other click named by the lead or the sale. */
    otherClickId: p.string().nullable(),
    saleId: p.integer().nullable(),
    createdAt: p.datetime(),
    /** Set when the advertiser resolved the customer's dispute. */
    resolvedAt: p.datetime().nullable(),
  },
});
export type IAttributionConflict = InferEntity<typeof AttributionConflict>;
