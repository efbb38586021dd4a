/**
 * The canonical hashing and signing text of a partner's statement (docs/statement-verification.md).
 * The standalone verifier (tracker/src/verify-statement.ts) implements the same rules on its own;
 * test/api/statement-verify-agree.test.ts checks that the two agree.
 */
import { sha256Hex } from '../shared/crypto.ts';
import { defuseFormula } from '../shared/csv-formulas.ts';

/** The facts of one statement line that its hash covers, as the CSV cells show them. */
export type ChainedLine = {
  id: number;
  created_at: string | null;
  currency: string;
  kind: string;
  delta_cents: string;
  commission_id: number | null;
  refund_id: number | null;
  payout_id: number | null;
};

/** The hash before a partner's first statement line. */
export const statementGenesis = (programId: number, partnerId: number) =>
  sha256Hex(`statement|${programId}|${partnerId}`);

/** A statement line's hash: the previous line's hash and the line's own facts. */
export function statementLineHash(previous: string, l: ChainedLine): string {
  const facts = [l.id, l.created_at, l.currency, l.kind, l.delta_cents, l.commission_id, l.refund_id, l.payout_id];
  return sha256Hex(`${previous}|${facts.map((f) => f ?? '').join('|')}`);
}

/** What caused a line, as the CSV cells show them (a transaction id that looks like a formula with its `'`). */
export type LineCause = { sale_id: number | null; lead_customer_id: number | null; transaction_id: string | null };

/**
 * The causes digest: a second chain, from the statement's genesis hash, over each line's hash and
 * the cells that name its cause (which the line hash does not cover), the free text last.
 */
export function statementCauseDigest(previous: string, lineHash: string, c: LineCause): string {
  const tx = c.transaction_id === null ? '' : defuseFormula(c.transaction_id);
  return sha256Hex(`${previous}|${lineHash}|${c.sale_id ?? ''}|${c.lead_customer_id ?? ''}|${tx}`);
}

/** Balances per currency as a checkpoint states them: `CUR:cents` in currency order, joined by `;`. */
export function formatCheckpointBalances(balances: ReadonlyMap<string, bigint>): string {
  return [...balances.keys()]
    .sort()
    .map((c) => `${c}:${balances.get(c)!.toString()}`)
    .join(';');
}

/** The parsed form of `formatCheckpointBalances`. */
export function parseCheckpointBalances(text: string): Map<string, bigint> {
  if (!text) return new Map();
  return new Map(
    text.split(';').map((pair) => {
      const [currency, cents] = pair.split(':') as [string, string];
      return [currency, BigInt(cents)];
    }),
  );
}

/** What a checkpoint signs. */
export type CheckpointFacts = {
  programId: number;
  partnerId: number;
  entryId: number;
  lines: number;
  hash: string;
  digest: string;
  balances: string;
  signedAt: Date;
};

/** The exact text a checkpoint's Ed25519 signature covers (as UTF-8 bytes). */
export function checkpointMessage(c: CheckpointFacts): string {
  const fields = [c.programId, c.partnerId, c.entryId, c.lines, c.hash, c.digest, c.balances, c.signedAt.toISOString()];
  return `statement-checkpoint|v1|${fields.join('|')}`;
}
