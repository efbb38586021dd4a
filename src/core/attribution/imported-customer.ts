import type { CoreDeps } from '../deps.ts';
import { Customer } from '../entities/customer.ts';

/** The partner of a customer an import bound to a payment provider's customer id (imports/). */
export type ImportedBinding = { customerId: number; partnerId: number };

/**
 * The last step of attribution: a sale nothing else attributes whose payment names the provider's
 * customer (`providerCustomerId`) goes to the partner an import bound that customer to (the tool
 * the merchant left had referred them; a renewal carries no tracker metadata). No click window:
 * the source's attribution stands.
 */
export async function findImportedBinding(
  deps: CoreDeps,
  programId: number,
  providerCustomerId: string | null | undefined,
): Promise<ImportedBinding | null> {
  if (!providerCustomerId) return null;
  const c = await deps.em.findOne(
    Customer,
    { program: programId, providerCustomerId, partner: { $ne: null } },
    { fields: ['id', 'partner'], orderBy: { id: 'asc' } },
  );
  return c?.partner ? { customerId: c.id, partnerId: c.partner } : null;
}

/** `findImportedBinding` as an attribution of the sale (no click: no window, no fraud timing). */
export async function attributeByImport(
  deps: CoreDeps,
  programId: number,
  providerCustomerId: string | null | undefined,
) {
  const bound = await findImportedBinding(deps, programId, providerCustomerId);
  if (!bound) return null;
  return {
    kind: 'attributed',
    customerId: bound.customerId,
    partnerId: bound.partnerId,
    clickId: null,
    clickAt: null,
    firstSaleAt: null,
    held: false,
    conflict: null,
    via: 'customer_key',
    partnerCodeId: null,
  } as const;
}
