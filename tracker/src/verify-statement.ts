/**
 * Verifies a partner statement downloaded from the service (`statement.csv`), offline, against the
 * service's published public keys (docs/statement-verification.md): every line's hash follows the
 * chain from the partner's genesis, every running balance and decimal follows from the amounts,
 * and the signed checkpoint the file carries verifies, with the line count, causes digest and
 * balances it states equal to the file's own up to that line. Node only (`node:crypto`).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { createRecordSplitter, parseRecord, type RawRecord } from './csv-records.ts';
import {
  CHECKPOINT_COLUMNS,
  COL,
  STATEMENT_COLUMNS,
  balancesText,
  causeDigest,
  checkpointText,
  decimalText,
  genesisHash,
  lineHash,
} from './statement-format.ts';

/** A public key as `/.well-known/statement-keys.json` lists it. */
export type StatementPublicKey = { key_id: string; public_key: string };

/** What the verifier found; `problem` names the first bad line (its line in the file, 1-based). */
export type StatementReport = {
  ok: boolean;
  /** Statement lines read (the header not counted). */
  lines: number;
  problem: { line: number; column: string | null; message: string } | null;
  programId: string | null;
  partnerId: string | null;
  /** The last signed checkpoint verified: its file line, key and the statement lines it covers. */
  checkpoint: { line: number; keyId: string; lines: number; signedAt: string } | null;
  /** Lines after the last checkpoint: their chain and balances are checked, but nothing signs them yet. */
  unsignedLines: number;
  /** Running balance per currency after the last line, minor units. */
  balances: Record<string, string>;
};

const INTEGER = /^-?(0|[1-9]\d*)$/;
const ID = /^[1-9]\d*$/;
const HEX128 = /^[0-9a-f]{128}$/;

class Invalid extends Error {
  readonly column: string | null;
  constructor(message: string, column: string | null = null) {
    super(message);
    this.column = column;
  }
}

function keyObjects(keys: readonly StatementPublicKey[]): Map<string, KeyObject> {
  return new Map(
    keys.map((k) => [
      k.key_id,
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.public_key }, format: 'jwk' }),
    ]),
  );
}

/**
 * A verifier fed the file's text in chunks (`write`), answering the report at `end`. Stops checking
 * at the first bad line. @throws Error for a public key that is not an Ed25519 key.
 */
export function createStatementVerifier(keys: readonly StatementPublicKey[]): {
  write(chunk: string): void;
  end(): StatementReport;
} {
  const publicKeys = keyObjects(keys);
  const balances = new Map<string, bigint>();
  const report: StatementReport = {
    ok: false,
    lines: 0,
    problem: null,
    programId: null,
    partnerId: null,
    checkpoint: null,
    unsignedLines: 0,
    balances: {},
  };
  let header = true;
  let hash = '';
  let digest = '';
  let lastId = 0n;
  const fail = (line: number, err: unknown) => {
    const e = err instanceof Invalid ? err : new Invalid(err instanceof Error ? err.message : String(err));
    report.problem ??= { line, column: e.column, message: e.message };
  };

  const onRecord = (r: RawRecord) => {
    if (report.problem) return;
    try {
      const cells = parseRecord(r.text);
      if (!cells) throw new Invalid('not a CSV record as the service writes them');
      if (header) {
        if (cells.join(',') !== STATEMENT_COLUMNS.join(','))
          throw new Invalid('the header is not the statement format v1 (tracker verify-statement knows v1)');
        header = false;
        return;
      }
      if (cells.length !== STATEMENT_COLUMNS.length)
        throw new Invalid(`${cells.length} cells, expected ${STATEMENT_COLUMNS.length}`);
      checkLine(cells, r.line);
    } catch (err) {
      fail(r.line, err);
    }
  };

  const checkLine = (c: string[], line: number) => {
    const cell = (name: keyof typeof COL) => c[COL[name]]!;
    if (report.lines === 0) {
      if (!ID.test(cell('program_id'))) throw new Invalid('not a program id', 'program_id');
      if (!ID.test(cell('partner_id'))) throw new Invalid('not a partner id', 'partner_id');
      report.programId = cell('program_id');
      report.partnerId = cell('partner_id');
      hash = genesisHash(report.programId, report.partnerId);
      digest = hash;
    } else {
      if (cell('program_id') !== report.programId) throw new Invalid('another program than line 2', 'program_id');
      if (cell('partner_id') !== report.partnerId) throw new Invalid('another partner than line 2', 'partner_id');
    }
    report.lines++;
    if (!ID.test(cell('id')) || BigInt(cell('id')) <= lastId)
      throw new Invalid('ids must be positive and increasing', 'id');
    lastId = BigInt(cell('id'));
    hash = lineHash(hash, c);
    if (cell('hash') !== hash)
      throw new Invalid('the hash does not follow from the previous line and this one', 'hash');
    digest = causeDigest(digest, hash, c);
    if (!INTEGER.test(cell('delta_cents'))) throw new Invalid('not an integer', 'delta_cents');
    const currency = cell('currency');
    const delta = BigInt(cell('delta_cents'));
    const balance = (balances.get(currency) ?? 0n) + delta;
    balances.set(currency, balance);
    if (cell('balance_cents') !== balance.toString())
      throw new Invalid(`the running balance should be ${balance}`, 'balance_cents');
    if (cell('delta') !== decimalText(delta, currency)) throw new Invalid('not delta_cents as a decimal', 'delta');
    if (cell('balance') !== decimalText(balance, currency))
      throw new Invalid('not balance_cents as a decimal', 'balance');
    if (CHECKPOINT_COLUMNS.every((name) => cell(name) === '')) return;
    const missing = CHECKPOINT_COLUMNS.find((name) => cell(name) === '');
    if (missing) throw new Invalid('an incomplete checkpoint', missing);
    checkCheckpoint(cell, line);
  };

  const checkCheckpoint = (cell: (name: keyof typeof COL) => string, line: number) => {
    const keyId = cell('checkpoint_key_id');
    const key = publicKeys.get(keyId);
    if (!key) throw new Invalid(`signed by key ${keyId}, which is not among the keys given`, 'checkpoint_key_id');
    if (cell('checkpoint_lines') !== String(report.lines))
      throw new Invalid(
        `the checkpoint counts ${cell('checkpoint_lines')} lines, the file ${report.lines}`,
        'checkpoint_lines',
      );
    if (cell('checkpoint_balances') !== balancesText(balances))
      throw new Invalid(`the signed balances are not the file's (${balancesText(balances)})`, 'checkpoint_balances');
    if (cell('checkpoint_digest') !== digest)
      throw new Invalid(
        'the lines differ from those the checkpoint signed (an amount, cause, sale or transaction changed)',
        'checkpoint_digest',
      );
    const signature = cell('checkpoint_signature');
    const text = checkpointText({
      programId: report.programId!,
      partnerId: report.partnerId!,
      entryId: cell('id'),
      lines: cell('checkpoint_lines'),
      hash,
      digest,
      balances: cell('checkpoint_balances'),
      signedAt: cell('checkpoint_signed_at'),
    });
    if (!HEX128.test(signature) || !verify(null, Buffer.from(text, 'utf8'), key, Buffer.from(signature, 'hex')))
      throw new Invalid(`the signature does not verify with key ${keyId}`, 'checkpoint_signature');
    report.checkpoint = { line, keyId, lines: report.lines, signedAt: cell('checkpoint_signed_at') };
  };

  const splitter = createRecordSplitter(onRecord);
  return {
    write(chunk) {
      splitter.write(chunk);
    },
    end() {
      const rest = splitter.end();
      const lastLine = report.lines + 2;
      if (!report.problem && rest !== '') fail(lastLine, new Invalid('the last line does not end with a newline'));
      if (!report.problem && header) fail(1, new Invalid('no header: not a statement'));
      if (!report.problem && !report.checkpoint)
        fail(lastLine, new Invalid('no signed checkpoint in the file (download it again after the next checkpoint)'));
      report.ok = report.problem === null;
      report.unsignedLines = report.checkpoint ? report.lines - report.checkpoint.lines : report.lines;
      report.balances = Object.fromEntries([...balances].map(([c, v]) => [c, v.toString()]));
      return report;
    },
  };
}

/** Verifies a statement held whole in memory (see `createStatementVerifier`). */
export function verifyStatement(text: string, keys: readonly StatementPublicKey[]): StatementReport {
  const v = createStatementVerifier(keys);
  v.write(text);
  return v.end();
}

/** Verifies a statement read in chunks (a file or response stream decoded as UTF-8). */
export async function verifyStatementStream(
  chunks: AsyncIterable<string>,
  keys: readonly StatementPublicKey[],
): Promise<StatementReport> {
  const v = createStatementVerifier(keys);
  for await (const chunk of chunks) v.write(chunk);
  return v.end();
}
