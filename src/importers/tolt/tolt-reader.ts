/**
 * Tolt's REST API (v1, https://api.tolt.com): partners with their group, links and promotion
 * codes, customers, commissions, and the payouts the paid commissions name. Every list takes the
 * program id and pages with `limit` + `starting_after` (`has_more` says whether more follow);
 * amounts are integers in the smallest unit of the currency. The key is given as
 * `<program id>:<API key>` (Tolt's lists need the program, its keys do not carry one).
 */
import type {
  ImportReader,
  ImportRecord,
  ImportedCommission,
  ImportedPartner,
} from '../../core/imports/import-records.ts';
import { createSourceHttp, readCursorPages, type SourceHttp } from '../fetch-pages.ts';
import {
  currencyCode,
  inDependencyOrder,
  integerMinor,
  isoTime,
  isRow,
  problem,
  refuseCsv,
  rowsOf,
  splitCustomerId,
  streamOf,
  text,
  type Row,
} from '../rows.ts';
import type { ReaderOptions } from '../reader-options.ts';

export const TOLT_BASE_URL = 'https://api.tolt.com';

export type ToltReaderOptions = ReaderOptions;

/** Tolt's commission statuses: approved is owed and unpaid; rejected and refunded never pay. */
const STATUS: Record<string, ImportedCommission['status']> = {
  pending: 'pending',
  approved: 'due',
  paid: 'paid',
  rejected: 'voided',
  refunded: 'voided',
};

function page(body: unknown) {
  const b = isRow(body) ? body : {};
  return { items: rowsOf(b.data, 'rows'), hasMore: b.has_more === true };
}

export function splitToltKey(apiKey: string | undefined): { programId: string; key: string } {
  const at = apiKey?.indexOf(':') ?? -1;
  if (!apiKey || at <= 0 || at === apiKey.length - 1) {
    throw new Error('Tolt needs the program id and the API key as "<program id>:<API key>" (prg_…:…)');
  }
  return { programId: apiKey.slice(0, at), key: apiKey.slice(at + 1) };
}

async function list(http: SourceHttp, path: string, programId: string, extra: Record<string, string> = {}) {
  return readCursorPages<Row>(http, path, { program_id: programId, ...extra }, page);
}

function partnerRecord(row: Row, codes: Map<string, string[]>): ImportedPartner | ImportRecord {
  const id = text(row.id);
  if (!id) return problem('partner', null, 'a partner without an id');
  const name = [text(row.first_name), text(row.last_name)].filter(Boolean).join(' ') || text(row.company_name);
  const details = isRow(row.payout_details) ? row.payout_details : {};
  const group = isRow(row.group) ? text(row.group.name) : null;
  return {
    kind: 'partner',
    sourceId: id,
    name: name || null,
    email: text(row.email),
    codes: codes.get(id) ?? [],
    group,
    payoutEmail: text(details.email),
    createdAt: isoTime(row.created_at),
  };
}

function commissionRecord(row: Row, partnerOfCustomer: Map<string, string>): ImportRecord {
  const id = text(row.id);
  if (!id) return problem('commission', null, 'a commission without an id');
  const customer = text(row.customer_id);
  const partner = text(row.partner_id) ?? (customer ? partnerOfCustomer.get(customer) : undefined);
  const status = STATUS[text(row.status) ?? ''];
  const amount = integerMinor(row.amount);
  const currency = currencyCode(row.currency);
  const createdAt = isoTime(row.created_at);
  if (!partner)
    return problem('commission', id, 'names no partner (its customer is not one of the imported customers)');
  if (!status) return problem('commission', id, `unknown Tolt status "${text(row.status) ?? ''}"`);
  if (amount === null)
    return problem('commission', id, `the amount "${String(row.amount)}" is not a whole number of cents`);
  if (!currency) return problem('commission', id, 'states no currency');
  if (!createdAt) return problem('commission', id, 'has no creation time');
  return {
    kind: 'commission',
    sourceId: id,
    partnerSourceId: partner,
    customerSourceId: customer,
    saleSourceId: text(row.charge_id) ?? text(row.transaction_id),
    currency,
    saleAmountMinor: integerMinor(row.revenue),
    amountMinor: amount,
    status,
    createdAt,
  };
}

/**
 * Tolt's API has no payouts list: a payout is the paid commissions that name the same payout id.
 * A paid commission naming none, or one whose payout mixes partners or currencies, is reported.
 */
function payoutsOf(commissions: Row[], records: ImportRecord[]): ImportRecord[] {
  const byPayout = new Map<string, { partner: string; currency: string; amount: number; paidAt: string }>();
  const problems: ImportRecord[] = [];
  const rows = new Map(commissions.map((c) => [text(c.id), c]));
  for (const r of records) {
    if (r.kind !== 'commission' || r.status !== 'paid') continue;
    const row = rows.get(r.sourceId)!;
    const payoutId = text(row.payout_id);
    const paidAt = isoTime(row.updated_at) ?? r.createdAt;
    const seen = payoutId ? byPayout.get(payoutId) : undefined;
    if (!payoutId) {
      problems.push(problem('payout', r.sourceId, 'a paid commission names no Tolt payout: it comes without one'));
    } else if (seen && (seen.partner !== r.partnerSourceId || seen.currency !== r.currency)) {
      problems.push(problem('payout', payoutId, `commission ${r.sourceId} is of another partner or currency`));
    } else {
      byPayout.set(payoutId, {
        partner: r.partnerSourceId,
        currency: r.currency,
        amount: (seen?.amount ?? 0) + r.amountMinor,
        paidAt: seen && seen.paidAt > paidAt ? seen.paidAt : paidAt,
      });
    }
  }
  const payouts = [...byPayout].map(([id, p]): ImportRecord => ({
    kind: 'payout',
    sourceId: id,
    partnerSourceId: p.partner,
    currency: p.currency,
    amountMinor: p.amount,
    paidAt: p.paidAt,
  }));
  return [...payouts, ...problems];
}

async function readTolt(http: SourceHttp, programId: string): Promise<ImportRecord[]> {
  const partners = await list(http, '/v1/partners', programId, { 'expand[]': 'group' });
  const links = await list(http, '/v1/links', programId);
  const promotionCodes = await list(http, '/v1/promotion-codes', programId);
  const customers = await list(http, '/v1/customers', programId);
  const commissions = await list(http, '/v1/commissions', programId);

  const codes = new Map<string, string[]>();
  const addCode = (partner: unknown, code: unknown) => {
    const p = text(partner);
    const c = text(code);
    if (p && c) codes.set(p, [...(codes.get(p) ?? []), c]);
  };
  for (const l of links) addCode(l.partner_id, l.value);
  for (const c of promotionCodes) addCode(c.partner_id, c.code);

  const records: ImportRecord[] = partners.map((p) => partnerRecord(p, codes));
  const partnerIds = new Set(records.flatMap((r) => (r.kind === 'partner' ? [r.sourceId] : [])));
  const partnerOfCustomer = new Map<string, string>();
  for (const c of customers) {
    const id = text(c.id);
    const partner = text(c.partner_id);
    if (!id) records.push(problem('customer', null, 'a customer without an id'));
    else if (!partner || !partnerIds.has(partner)) records.push(problem('customer', id, 'names no imported partner'));
    else {
      partnerOfCustomer.set(id, partner);
      records.push({
        kind: 'customer',
        sourceId: id,
        partnerSourceId: partner,
        ...splitCustomerId(c.customer_id),
        email: text(c.email),
        createdAt: isoTime(c.created_at),
      });
    }
  }
  records.push(...commissions.map((c) => commissionRecord(c, partnerOfCustomer)));
  records.push(...payoutsOf(commissions, records));
  return inDependencyOrder(records);
}

export function createToltReader(options: ToltReaderOptions): ImportReader {
  refuseCsv('Tolt', options.csv);
  const { programId, key } = splitToltKey(options.apiKey);
  const http = createSourceHttp({
    fetch: options.fetch,
    label: 'Tolt',
    baseUrl: options.baseUrl ?? TOLT_BASE_URL,
    headers: { authorization: `Bearer ${key}` },
  });
  return {
    source: 'tolt',
    records: () => streamOf(() => readTolt(http, programId)),
    // Tolt's API states no balance per partner: the import compares with the commissions it read.
    balances: async () => null,
  };
}
