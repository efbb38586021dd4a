import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

/**
 * An order the merchant registered before showing its bank-transfer QR (`POST
 * /api/v1/track/checkout`): the order code the transfer will name, and whom it is for. VietQR
 * gateways (PayOS, SePay) carry no checkout metadata, so their paid notifications find the
 * customer through this row (order-registrations.ts). The click id is kept as sent (checked
 * against the program's clicks when registered) and resolved by the sale like a checkout's
 * `tracker_click_id`.
 */
export const OrderRegistration = defineEntity({
  name: 'OrderRegistration',
  uniques: [{ properties: ['program', 'orderCode'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    /** The merchant's order code: PayOS `orderCode`, SePay payment code or order invoice number. */
    orderCode: p.string(),
    customerKey: p.string().nullable(),
    clickId: p.string().nullable(),
    /** The gateway the order is paid through, if the merchant said (reporting only). */
    provider: p.string().nullable(),
    /** The order's amount and currency as the merchant said (reference only; the payment's own amount is recorded). */
    amountCents: p.bigint('number').nullable(),
    currency: p.string().nullable(),
    createdAt: p.datetime(),
  },
});
export type IOrderRegistration = InferEntity<typeof OrderRegistration>;
