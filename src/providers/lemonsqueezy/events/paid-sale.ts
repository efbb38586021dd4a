import type { EventContext, EventOutcome } from '../../adapter.ts';
import {
  emit,
  ignore,
  providerSale,
  readPaymentBasics,
  type PaidBasics,
  type ProviderSaleFields,
} from '../../provider-jobs.ts';
import { readId, readInteger } from '../../read-payload.ts';

/** What a handler adds to the sale beyond the ids, the amount and the tax. */
type OwnFields = Omit<ProviderSaleFields, 'transactionId' | 'providerPaymentId' | 'taxCents'>;

/**
 * A paid order (`order_created`) or subscription invoice (`subscription_payment_success`) as a
 * sale under `ls-order-<id>` or `ls-invoice-<id>`, the part both handlers share: both objects
 * carry `status`, `total` (integer cents in `currency`, tax included, after discounts) and `tax`,
 * and the checkout's custom data comes on the envelope (`meta.custom_data`) of both. `fields`
 * adds what the handler reads from its own object, given the id and the payment's basics.
 */
export function paidSale(
  object: Record<string, unknown>,
  attributes: Record<string, unknown>,
  ctx: EventContext,
  kind: 'order' | 'invoice',
  fields: (id: string, paid: PaidBasics) => OwnFields,
): EventOutcome {
  if (attributes.status !== 'paid') return ignore('not_paid');
  const id = readId(object.id);
  if (!id) return ignore(`missing_${kind}_id`);
  const basics = readPaymentBasics(
    readInteger(attributes.total),
    attributes.currency,
    [ctx.envelopeMetadata],
    ctx.programId,
    // "A positive integer in cents" (Lemon Squeezy's order object): two-decimal currencies only.
    'cents',
  );
  if (!basics.ok) return basics.outcome;
  return emit(
    providerSale(ctx, basics, {
      transactionId: `ls-${kind}-${id}`,
      providerPaymentId: id,
      taxCents: readInteger(attributes.tax),
      ...fields(id, basics),
    }),
  );
}
