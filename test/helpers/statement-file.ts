/**
 * Statement files made with the service's own code (the line hash, the causes digest, the export's
 * columns and CSV encoder, the checkpoint message) from seeded pseudo-random lines, signed with a
 * fresh Ed25519 key: what the verifier tests and the verifier bench read.
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { CsvEncoder } from '../../src/http/csv-encoder.ts';
import { EXPORT_COLUMNS, exportCells, type ExportRow } from '../../src/core/reporting/exports.ts';
import {
  checkpointMessage,
  formatCheckpointBalances,
  statementCauseDigest,
  statementGenesis,
  statementLineHash,
} from '../../src/core/ledger/statement-hash.ts';

/** mulberry32: a small seeded PRNG, so a failing case can be made again from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type StatementKeyPair = { key_id: string; public_key: string; sign(text: string): string };

export function makeStatementKey(): StatementKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return {
    key_id: createHash('sha256').update(raw).digest('hex').slice(0, 16),
    public_key: raw.toString('base64url'),
    sign: (text) => sign(null, Buffer.from(text, 'utf8'), privateKey).toString('hex'),
  };
}

// Transaction ids a merchant may send, CSV quoting and formula defusing included.
const TRANSACTIONS = ['ord_1', 'inv,2024', 'say "hi"', '=SUM(A1)', 'line\nbreak', '-dash', 'ünïcødé'];
const CURRENCIES = ['USD', 'EUR', 'VND'];

export type StatementFileOptions = {
  programId?: number;
  partnerId?: number;
  lines: number;
  seed: number;
  /** The line (1-based) that carries the checkpoint; default the last. */
  checkpointAt?: number;
  key: StatementKeyPair;
  /** Lines per encoded chunk. */
  pageSize?: number;
};

/** The statement CSV in chunks: the header, then pages of lines. */
export function* statementFileChunks(o: StatementFileOptions): Generator<Buffer> {
  const programId = o.programId ?? 7;
  const partnerId = o.partnerId ?? 3;
  const random = seededRandom(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const checkpointAt = o.checkpointAt ?? o.lines;
  yield Buffer.from(`${EXPORT_COLUMNS.statement.join(',')}\n`);
  const encoder = new CsvEncoder(exportCells('statement'));
  const balances = new Map<string, bigint>();
  let hash = statementGenesis(programId, partnerId);
  let digest = hash;
  let at = Date.UTC(2026, 0, 1);
  let page: ExportRow[] = [];
  for (let n = 1; n <= o.lines; n++) {
    at += Math.floor(random() * 60_000);
    const currency = pick(CURRENCIES);
    const roll = random();
    const kind = roll < 0.6 ? 'commission_credit' : roll < 0.85 ? 'refund_deduction' : 'payout';
    const amount = BigInt(1 + Math.floor(random() * 100_000));
    const commissionId = kind === 'payout' ? null : 1000 + n;
    const lead = kind === 'commission_credit' && random() < 0.2;
    const line = {
      id: 10 + n * 2,
      created_at: new Date(at).toISOString(),
      currency,
      kind,
      delta_cents: (kind === 'commission_credit' ? amount : -amount).toString(),
      commission_id: commissionId,
      refund_id: kind === 'refund_deduction' ? 500 + n : null,
      payout_id: kind === 'payout' ? 900 + n : null,
      sale_id: commissionId && !lead ? 2000 + n : null,
      transaction_id: commissionId && !lead ? `${pick(TRANSACTIONS)}-${n}` : null,
      lead_customer_id: lead ? 3000 + n : null,
    };
    const balance = (balances.get(currency) ?? 0n) + BigInt(line.delta_cents);
    balances.set(currency, balance);
    hash = statementLineHash(hash, line);
    digest = statementCauseDigest(digest, hash, line);
    const row: ExportRow = {
      ...line,
      balance_cents: balance.toString(),
      hash,
      program_id: programId,
      partner_id: partnerId,
    };
    if (n === checkpointAt) {
      const facts = {
        programId,
        partnerId,
        entryId: line.id,
        lines: n,
        hash,
        digest,
        balances: formatCheckpointBalances(balances),
        signedAt: new Date(at + 1000),
      };
      Object.assign(row, {
        checkpoint_lines: n,
        checkpoint_digest: digest,
        checkpoint_balances: facts.balances,
        checkpoint_signed_at: facts.signedAt.toISOString(),
        checkpoint_key_id: o.key.key_id,
        checkpoint_signature: o.key.sign(checkpointMessage(facts)),
      });
    }
    page.push(row);
    if (page.length === (o.pageSize ?? 1000)) {
      yield encoder.encode(page);
      page = [];
    }
  }
  if (page.length) yield encoder.encode(page);
}

/** The whole statement as text. */
export function statementFileText(o: StatementFileOptions): string {
  return Buffer.concat([...statementFileChunks(o)]).toString('utf8');
}
