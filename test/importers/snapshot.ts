import type { CoreDeps } from '../../src/core/deps.ts';
import { Partner } from '../../src/core/entities/partner.ts';
import { PartnerCode } from '../../src/core/entities/partner-code.ts';
import { PartnerGroup } from '../../src/core/entities/partner-group.ts';
import { Commission } from '../../src/core/entities/commission.ts';
import { Customer } from '../../src/core/entities/customer.ts';
import { readBalances } from '../../src/core/ledger/ledger.ts';
import type { ExpectedPartner } from './source-expectation.ts';

/** A program's partners (all but `exceptPartnerId`) as ExpectedPartner, sorted by email: what an import left. */
export async function snapshotPartners(
  deps: CoreDeps,
  programId: number,
  exceptPartnerId: number,
): Promise<ExpectedPartner[]> {
  const em = deps.em.fork();
  const partners = await em.find(Partner, { program: programId, id: { $ne: exceptPartnerId } });
  const out: ExpectedPartner[] = [];
  for (const p of partners) {
    const group = p.group ? await em.findOneOrFail(PartnerGroup, { id: p.group }) : null;
    const codes = await em.find(PartnerCode, { partner: p.id });
    const commissions = await em.find(Commission, { partner: p.id });
    const customers = await em.find(Customer, { program: programId, partner: p.id });
    out.push({
      email: p.email ?? '',
      codes: codes.map((c) => c.code).sort(),
      group: group?.name ?? null,
      balances: Object.fromEntries(
        (await readBalances(em, p.id))
          .filter((b) => b.balanceCents !== 0n)
          .map((b) => [b.currency, Number(b.balanceCents)]),
      ),
      commissions: commissions.map((c) => `${c.status}:${c.amountCents}`).sort(),
      customers: customers.map((c) => c.providerCustomerId ?? '').sort(),
    });
  }
  return out.sort((a, b) => a.email.localeCompare(b.email));
}
