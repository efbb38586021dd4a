#!/usr/bin/env node
/**
 * Merchant CLI `tracker`: checks the key and sends test-mode traffic through the server client;
 * `verify-statement` (verify-statement-command.ts) checks a partner statement offline.
 * The API key is a secret (spec "Authentication" 7): it is redacted from everything printed,
 * including server messages and errors.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createTrackerClient } from './client.ts';
import type { Currency, SaleResponse, TrackerResult } from './client-types.ts';
import { runMcpProxy } from './mcp-proxy.ts';
import { runVerifyStatement } from './verify-statement-command.ts';

const DEFAULT_API_URL = 'http://localhost:3000';

const USAGE = `Usage: tracker <command> [options]

Commands:
  status              check the API key and the program
  test-sale           send a test-mode sale (no customer needed, creates no commission)
  test-event          send a minimal test-mode event
  mcp                 serve the service's MCP tools on stdin/stdout for an AI assistant
                      (relays to <api-url>/mcp; needs an MCP token, not the API key)
  verify-statement    check a downloaded partner statement offline (tracker verify-statement --help)

Options:
  --api-key <key>     program API key (default: $TRACKER_API_KEY; prefer the variable,
                      command lines are visible to other local users)
  --api-url <url>     API base URL (default: $TRACKER_API_URL or ${DEFAULT_API_URL})
  --mcp-token <t>     MCP token for \`mcp\` (default: $TRACKER_MCP_TOKEN; prefer the variable)
  --amount <cents>    test-sale amount in minor units (default 4900)
  --currency <code>   test-sale currency: USD, EUR, VND or one the service enables (default USD)
  --json              print one JSON object on stdout instead of text (scripts):
                      {"ok", "command", "status", "api_url", "data" or "error"}
  -h, --help          show this help

Exit status: 0 success, 1 the API call failed, 2 usage error.`;

const VERIFY_COMMAND = 'verify-statement';

export type CliIo = {
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Passed to the client; defaults to the global fetch. */
  fetch?: typeof fetch;
};

/** Every value the user may have given as a key, wherever it came from, so it can be redacted. */
function findSecrets(argv: string[], env: CliIo['env']): string[] {
  const found = [env.TRACKER_API_KEY, env.TRACKER_MCP_TOKEN];
  argv.forEach((arg, i) => {
    for (const flag of ['--api-key', '--mcp-token']) {
      if (arg === flag) found.push(argv[i + 1]);
      else if (arg.startsWith(`${flag}=`)) found.push(arg.slice(flag.length + 1));
    }
  });
  return found.filter((s): s is string => typeof s === 'string' && s.length >= 4);
}

function summarise(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [`  ${prefix || 'body'}: ${typeof value === 'string' ? value : JSON.stringify(value)}`];
  }
  return Object.entries(value).flatMap(([key, inner]) => summarise(inner, prefix ? `${prefix}.${key}` : key));
}

function failure(what: string, res: TrackerResult<unknown>): string {
  return `${what} failed: ${res.error ?? 'unknown error'}${res.status ? ` (HTTP ${res.status})` : ' (no response)'}`;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === VERIFY_COMMAND) return runVerifyStatement(argv.slice(1), io);
  const secrets = findSecrets(argv, io.env);
  const redact = (text: string): string => secrets.reduce((acc, s) => acc.split(s).join('[redacted]'), text);
  const out = (line: string): void => io.out(redact(line));
  const err = (line: string): void => io.err(redact(line));

  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (e) {
    err(`${e instanceof Error ? e.message : String(e)}\n\n${USAGE}`);
    return 2;
  }
  const [command, ...extra] = args.positionals;
  if (args.values.help || command === 'help') {
    out(USAGE);
    return 0;
  }
  if (!command || extra.length > 0 || !['status', 'test-sale', 'test-event', 'mcp'].includes(command)) {
    err(`${command ? `unknown command: ${[command, ...extra].join(' ')}` : 'missing command'}\n\n${USAGE}`);
    return 2;
  }

  if (command === 'mcp') {
    const token = args.values['mcp-token'] ?? io.env.TRACKER_MCP_TOKEN;
    if (!token) {
      err('missing MCP token: pass --mcp-token or set TRACKER_MCP_TOKEN');
      return 2;
    }
    const base = (args.values['api-url'] ?? io.env.TRACKER_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, '');
    await runMcpProxy({ url: new URL(`${base}/mcp`), token, warn: err });
    return 0;
  }

  const apiKey = args.values['api-key'] ?? io.env.TRACKER_API_KEY;
  if (!apiKey) {
    err('missing API key: pass --api-key or set TRACKER_API_KEY');
    return 2;
  }
  const apiUrl = args.values['api-url'] ?? io.env.TRACKER_API_URL ?? DEFAULT_API_URL;
  const client = createTrackerClient({ apiKey, apiUrl, fetch: io.fetch });
  /** `--json`: the call's outcome as one object on stdout (redacted like every line). */
  const report = (res: TrackerResult<unknown>, extra: Record<string, unknown> = {}): void =>
    out(
      JSON.stringify({
        ok: res.ok,
        command,
        status: res.status ?? null,
        api_url: apiUrl,
        ...(res.ok ? { data: res.data } : { error: res.error ?? 'unknown error' }),
        ...extra,
      }),
    );

  if (command === 'status') {
    const res = await client.status();
    if (args.values.json) {
      report(res);
      return res.ok ? 0 : 1;
    }
    if (!res.ok) {
      err(failure('status', res));
      return 1;
    }
    out(`OK: ${apiUrl} accepted the API key (HTTP ${res.status})`);
    for (const line of summarise(res.data)) out(line);
    return 0;
  }

  let res: TrackerResult<SaleResponse>;
  if (command === 'test-sale') {
    const amountText = args.values.amount ?? '4900';
    const amount = /^\d+$/.test(amountText) ? Number(amountText) : NaN;
    if (!Number.isSafeInteger(amount) || amount <= 0) {
      err(`--amount must be a positive integer number of cents, got ${JSON.stringify(amountText)}`);
      return 2;
    }
    const currency = (args.values.currency ?? 'USD').toUpperCase() as Currency;
    const invoiceId = `cli-test-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    res = await client.trackTestSale({ amount, currency, invoiceId, additionalData: { source: 'cli' } });
  } else {
    res = await client.trackTestSale();
  }
  const body = res.data as { message?: unknown; data?: { test_mode?: unknown } } | null;
  if (args.values.json) {
    const confirmed = res.ok && body?.data?.test_mode === true;
    report(res, res.ok ? { test_mode_confirmed: confirmed } : {});
    return confirmed ? 0 : 1;
  }
  if (!res.ok) {
    err(failure(command, res));
    return 1;
  }
  out(`${command} accepted (HTTP ${res.status})${typeof body?.message === 'string' ? `: ${body.message}` : ''}`);
  for (const line of summarise(body?.data ?? body)) out(line);
  if (body?.data?.test_mode !== true) {
    err('warning: the server did not confirm test mode for this call');
    return 1;
  }
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'api-key': { type: 'string' },
      'api-url': { type: 'string' },
      'mcp-token': { type: 'string' },
      amount: { type: 'string' },
      currency: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function isMain(): boolean {
  try {
    return process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  process.exitCode = await runCli(process.argv.slice(2), {
    env: process.env,
    out: (line) => process.stdout.write(line + '\n'),
    err: (line) => process.stderr.write(line + '\n'),
  });
}
