/**
 * What the reader tests compare: every record a reader yields, and the summaries each fixture's
 * expected.ts states by hand (counts per kind, codes per partner, what each partner is owed).
 */
import type { ImportReader, ImportRecord } from '../../src/core/imports/import-records.ts';

export async function readAll(reader: ImportReader): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const r of reader.records()) out.push(r);
  return out;
}

export function countsByKind(records: ImportRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of records) counts[r.kind] = (counts[r.kind] ?? 0) + 1;
  return counts;
}

export function codesByPartner(records: ImportRecord[]): Record<string, string[]> {
  return Object.fromEntries(records.flatMap((r) => (r.kind === 'partner' ? [[r.sourceId, r.codes]] : [])));
}

/** Due (approved, unpaid) commission totals per partner and currency: `{ partner: { USD: 1470 } }`. */
export function dueByPartner(records: ImportRecord[]): Record<string, Record<string, number>> {
  const due: Record<string, Record<string, number>> = {};
  for (const r of records) {
    if (r.kind !== 'commission' || r.status !== 'due') continue;
    const p = (due[r.partnerSourceId] ??= {});
    p[r.currency] = (p[r.currency] ?? 0) + r.amountMinor;
  }
  return due;
}

/** Records come in dependency order: no customer, commission or payout before a partner. */
export function inDependencyOrder(records: ImportRecord[]): boolean {
  const rank = { partner: 0, customer: 1, commission: 2, payout: 3 } as const;
  const ranks = records.map((r) => rank[r.kind === 'problem' ? r.of : r.kind]);
  return ranks.every((v, i) => i === 0 || ranks[i - 1]! <= v);
}
