/**
 * `tracker verify-statement FILE --key KEY…`: checks a downloaded statement offline
 * (verify-statement.ts). Exit status: 0 the statement verifies, 1 it does not (the first bad line is
 * named), 2 a usage or read error (no file, no key, a key file that does not parse).
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { verifyStatementStream, type StatementPublicKey, type StatementReport } from './verify-statement.ts';

export const VERIFY_USAGE = `Usage: tracker verify-statement FILE --key KEY [--key KEY…] [--json]

Checks a statement downloaded from the service (statement.csv): the hash chain, every running
balance, and the signed checkpoint with its line count, causes digest and balances.

  FILE                 the statement CSV ("-" reads standard input)
  --key KEY            a public key: a saved copy of {base_url}/.well-known/statement-keys.json,
                       that URL itself, or KEY_ID:PUBLIC_KEY (base64url); repeatable
  --json               print the report as one JSON object

Exit status: 0 verified, 1 not verified (the report names the first bad line), 2 usage or read error.`;

export type VerifyIo = {
  out: (line: string) => void;
  err: (line: string) => void;
  fetch?: typeof fetch;
  stdin?: NodeJS.ReadableStream;
};

class UsageError extends Error {}

function keysOfJson(text: string, source: string): StatementPublicKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`${source}: not JSON`);
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || !keys.every((k) => typeof k?.key_id === 'string' && typeof k?.public_key === 'string'))
    throw new UsageError(`${source}: expected {"keys": [{"key_id", "public_key"}, …]}`);
  return keys.map((k: StatementPublicKey) => ({ key_id: k.key_id, public_key: k.public_key }));
}

async function readKeys(values: string[], io: VerifyIo): Promise<StatementPublicKey[]> {
  const keys: StatementPublicKey[] = [];
  for (const value of values) {
    if (/^https?:\/\//.test(value)) {
      const res = await (io.fetch ?? fetch)(value).catch((e: unknown) => {
        throw new UsageError(`${value}: ${e instanceof Error ? e.message : String(e)}`);
      });
      if (!res.ok) throw new UsageError(`${value}: HTTP ${res.status}`);
      keys.push(...keysOfJson(await res.text(), value));
    } else if (/^[0-9a-f]{16}:[A-Za-z0-9_-]{43}$/.test(value)) {
      const [keyId, publicKey] = value.split(':') as [string, string];
      keys.push({ key_id: keyId, public_key: publicKey });
    } else {
      const text = await readFile(value, 'utf8').catch((e: NodeJS.ErrnoException) => {
        throw new UsageError(`--key ${value}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
      });
      keys.push(...keysOfJson(text, value));
    }
  }
  return keys;
}

function describe(r: StatementReport, file: string): string[] {
  if (!r.ok) {
    const p = r.problem!;
    return [`INVALID: ${file} line ${p.line}${p.column ? ` (${p.column})` : ''}: ${p.message}`];
  }
  const c = r.checkpoint!;
  const lines = [
    `OK: ${file}: statement of partner ${r.partnerId} in program ${r.programId}, ${r.lines} lines; ` +
      `chain, balances and totals verified`,
    `  checkpoint on line ${c.line}, signed ${c.signedAt} by key ${c.keyId}, covers ${c.lines} lines`,
    `  balances: ${Object.entries(r.balances)
      .map(([cur, v]) => `${cur} ${v}`)
      .join(', ')}`,
  ];
  if (r.unsignedLines)
    lines.push(`  ${r.unsignedLines} later lines are chained but not signed yet (the next checkpoint signs them)`);
  return lines;
}

export async function runVerifyStatement(argv: string[], io: VerifyIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        key: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.out(VERIFY_USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new UsageError(positionals.length ? 'one FILE only' : 'missing FILE');
    if (!values.key?.length) throw new UsageError('missing --key');
    const keys = await readKeys(values.key, io);
    const file = positionals[0]!;
    const stream = file === '-' ? (io.stdin ?? process.stdin) : createReadStream(file);
    stream.setEncoding('utf8');
    const report = await verifyStatementStream(stream as AsyncIterable<string>, keys).catch(
      (e: NodeJS.ErrnoException) => {
        throw new UsageError(`${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
      },
    );
    if (values.json) io.out(JSON.stringify(report));
    else for (const line of describe(report, file)) (report.ok ? io.out : io.err)(line);
    return report.ok ? 0 : 1;
  } catch (e) {
    io.err(`${e instanceof Error ? e.message : String(e)}\n\n${VERIFY_USAGE}`);
    return 2;
  }
}
