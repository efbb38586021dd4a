// Admin CLI over the admin HTTP API (which runs the core use-cases), so it works the same against
// an embedded `npm start` and a production deployment. Usage: npm run admin -- <command> [args]
import { ADMIN_CLI_USER_AGENT } from '../http/admin-audit.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { referralLink } from '../core/attribution/referral-link.ts';
import { render } from './admin-output.ts';
import { HELP } from './admin-help.ts';
import { parseArgv } from './parse-argv.ts';
import { readSecret } from './read-secret.ts';
import { printLedgerReport } from './ledger-verify-output.ts';
import { importCommand } from './admin-import.ts';

const { values, positionals } = parseArgv(process.argv.slice(2));
const [command, ...args] = positionals;
if (!command || values.help) {
  console.log(HELP);
  process.exit(command ? 0 : 1);
}

const baseUrl = String(values.url ?? process.env.ADMIN_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(
  /\/$/,
  '',
);
const urlSource = values.url
  ? '--url'
  : process.env.ADMIN_URL
    ? 'ADMIN_URL'
    : `the default (PORT ${process.env.PORT ? 'from the environment' : 'unset: 3000'})`;
const tokenFile = join(process.env.DATA_DIR ?? './.data', 'admin-token');
const token =
  (values.token as string | undefined) ??
  process.env.ADMIN_TOKEN ??
  (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined);
// Said in every error: which server and which credential this run used, so a person can fix the right one.
const tokenSource = values.token
  ? '--token'
  : process.env.ADMIN_TOKEN
    ? 'ADMIN_TOKEN'
    : existsSync(tokenFile)
      ? `the file ${tokenFile}`
      : 'nowhere';

/** `--kebab-case value` flags → snake_case body fields; numbers, booleans and null are parsed. */
function flags(skip: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    if (['url', 'token', 'help', 'json', 'field', ...skip].includes(k)) continue;
    const s = String(v);
    out[k.replace(/-/g, '_')] =
      s === 'null' ? null : s === 'true' ? true : s === 'false' ? false : /^-?\d+$/.test(s) ? Number(s) : s;
  }
  return out;
}
const need = (n: number) => {
  if (args.length < n) {
    console.error(`"${command}" needs ${n} argument(s); see --help`);
    process.exit(2);
  }
  return args;
};

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  if (!token)
    throw new Error(
      `No admin token: pass --token, set ADMIN_TOKEN, or run in the directory of the embedded server (it writes ${tokenFile}; set DATA_DIR if it uses another one)`,
    );
  const res = await fetch(`${baseUrl}/api/v1/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'user-agent': ADMIN_CLI_USER_AGENT,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  }).catch((err) => {
    throw new Error(
      `cannot reach ${baseUrl} (URL from ${urlSource}): ${err.cause?.code ?? err.message}. Start the server (npm start), or point --url / ADMIN_URL at it.`,
    );
  });
  // A download (a payout run's CSV file) is printed as it came.
  if (res.ok && !res.headers.get('content-type')?.includes('json')) return res.text();
  const data = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  if (res.status === 401) {
    throw new Error(
      `401 ${data?.error?.code ?? 'unauthorized'}: ${baseUrl} (URL from ${urlSource}) refused the admin token from ${tokenSource}. ` +
        'Use the ADMIN_TOKEN the server was started with, or the admin-token file in its DATA_DIR.',
    );
  }
  if (!res.ok)
    throw new Error(
      `${res.status} ${data?.error?.code ?? ''}: ${data?.error?.message ?? 'request failed'} (${method} ${baseUrl}/api/v1/admin${path})`,
    );
  return data;
}

/** `--rules-file FILE` as `reward_rules` (the word `null` clears them); nothing without the flag. */
function rulesFlag(): { reward_rules?: unknown } {
  const file = values['rules-file'];
  if (typeof file !== 'string') return {};
  if (file === 'null') return { reward_rules: null };
  try {
    return { reward_rules: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (err) {
    throw new Error(`cannot read reward rules from ${file}: ${(err as Error).message}`, { cause: err });
  }
}

type Partner = { code: string; [field: string]: unknown };

/** Partners with the link a partner shares, built as the partner portal builds it. */
async function withReferralLinks<T extends Partner>(
  programId: string,
  partners: T[],
): Promise<Array<T & { referral_link: string }>> {
  const { program } = (await call('GET', `/programs/${programId}`)) as {
    program: { id: number; domain: string | null; landing_url?: string | null };
  };
  const linked = { ...program, landingUrl: program.landing_url ?? null };
  // Without a domain or landing URL: the demo page at the server this command talks to.
  const demo = { enabled: true, origin: process.env.PUBLIC_BASE_URL || baseUrl };
  return partners.map((p) => ({ ...p, referral_link: referralLink(linked, p.code, demo) ?? '' }));
}

const commands: Record<string, () => Promise<unknown>> = {
  'programs:create': () => call('POST', '/programs', flags()),
  'programs:list': () => call('GET', '/programs'),
  'programs:show': () => call('GET', `/programs/${need(1)[0]}`),
  'programs:update': () => call('PATCH', `/programs/${need(1)[0]}`, flags()),
  'keys:issue': () => call('POST', `/programs/${need(1)[0]}/keys`, { mode: values.mode ?? 'live' }),
  'keys:list': () => call('GET', `/programs/${need(1)[0]}/api-keys`),
  'keys:retire': () =>
    call(
      'POST',
      `/programs/${need(2)[0]}/keys/${args[1]}/retire`,
      values['rotate-by'] ? { rotate_by: values['rotate-by'] } : {},
    ),
  'keys:rotate': () =>
    call(
      'POST',
      `/programs/${need(2)[0]}/keys/${args[1]}/rotate`,
      values['grace-days'] ? { grace_days: Number(values['grace-days']) } : {},
    ),
  'mcp-tokens:issue': () =>
    call('POST', `/programs/${need(1)[0]}/mcp-tokens`, {
      scope: values.scope ?? 'read',
      ...(typeof values.name === 'string' ? { name: values.name } : {}),
    }),
  'mcp-tokens:list': () => call('GET', `/programs/${need(1)[0]}/mcp-tokens`),
  'mcp-tokens:revoke': () => call('POST', `/programs/${need(2)[0]}/mcp-tokens/${args[1]}/revoke`),
  'partners:create': async () => {
    const { partner } = (await call('POST', `/programs/${need(1)[0]}/partners`, flags())) as { partner: Partner };
    return { partner: (await withReferralLinks(args[0]!, [partner]))[0] };
  },
  'partners:list': async () => {
    const { partners } = (await call(
      'GET',
      `/programs/${need(1)[0]}/partners?${new URLSearchParams(flags() as Record<string, string>)}`,
    )) as { partners: Partner[] };
    return { partners: await withReferralLinks(args[0]!, partners) };
  },
  'partners:invite': () => call('POST', `/programs/${need(2)[0]}/partners/${args[1]}/invites`),
  'codes:create': () => {
    const ids = values['provider-ids'];
    return call('POST', `/programs/${need(2)[0]}/partners/${args[1]}/codes`, {
      code: values.code,
      ...(typeof ids === 'string' ? { provider_ids: ids.split(',').map((s) => s.trim()) } : {}),
    });
  },
  'codes:list': () =>
    call('GET', `/programs/${need(1)[0]}/partner-codes?${new URLSearchParams(flags() as Record<string, string>)}`),
  'codes:disable': () => call('POST', `/programs/${need(2)[0]}/partner-codes/${args[1]}/disable`),
  'groups:create': () => call('POST', `/programs/${need(1)[0]}/partner-groups`, { name: values.name, ...rulesFlag() }),
  'groups:update': () =>
    call('PATCH', `/programs/${need(2)[0]}/partner-groups/${args[1]}`, {
      ...(values.name ? { name: values.name } : {}),
      ...rulesFlag(),
    }),
  'groups:list': () => call('GET', `/programs/${need(1)[0]}/partner-groups`),
  'groups:assign': () =>
    call('PUT', `/programs/${need(3)[0]}/partners/${args[1]}/group`, {
      group_id: args[2] === 'none' ? null : Number(args[2]),
    }),
  'rules:set': () => {
    if (!values['rules-file']) throw new Error('--rules-file FILE (JSON reward rules, or null) is required');
    return call('PATCH', `/programs/${need(1)[0]}`, rulesFlag());
  },
  'partners:statement': () => call('GET', `/programs/${need(2)[0]}/partners/${args[1]}/statement`),
  'partners:account': () => commands['partners:statement']!(),
  list: () =>
    call('GET', `/programs/${need(2)[0]}/${args[1]}?${new URLSearchParams(flags() as Record<string, string>)}`),
  'commissions:approve': () => call('POST', `/programs/${need(2)[0]}/commissions/${args[1]}/approve`),
  'commissions:release': () => call('POST', `/programs/${need(2)[0]}/commissions/${args[1]}/release`),
  'commissions:reject': () => call('POST', `/programs/${need(2)[0]}/commissions/${args[1]}/reject`),
  'commissions:reverse': () => call('POST', `/programs/${need(2)[0]}/commissions/${args[1]}/reverse`, flags()),
  'commissions:pay': () => call('POST', `/programs/${need(2)[0]}/commissions/${args[1]}/pay`),
  'payouts:open': () => call('POST', `/programs/${need(2)[0]}/partners/${args[1]}/payouts`, flags()),
  'payouts:pay': () => call('POST', `/programs/${need(2)[0]}/payouts/${args[1]}/pay`),
  'payouts:cancel': () => call('POST', `/programs/${need(2)[0]}/payouts/${args[1]}/cancel`),
  'payouts:show': () => call('GET', `/programs/${need(2)[0]}/payouts/${args[1]}`),
  'payouts:list': () =>
    call('GET', `/programs/${need(1)[0]}/payouts?${new URLSearchParams(flags() as Record<string, string>)}`),
  'payouts:run': () => call('POST', `/programs/${need(1)[0]}/payout-runs`, flags()),
  'payouts:file': () =>
    call(
      'GET',
      `/programs/${need(2)[0]}/payout-runs/${args[1]}/file?${new URLSearchParams(flags() as Record<string, string>)}`,
    ),
  'payouts:transfers': () => call('POST', `/programs/${need(2)[0]}/payout-runs/${args[1]}/transfers`),
  'payouts:confirm-run': () => call('POST', `/programs/${need(2)[0]}/payout-runs/${args[1]}/confirm`),
  'payouts:confirm': () => call('POST', `/programs/${need(2)[0]}/payouts/${args[1]}/confirm`),
  'payouts:fail': () => call('POST', `/programs/${need(2)[0]}/payouts/${args[1]}/fail`, flags()),
  'withdrawals:open': () => commands['payouts:open']!(),
  'withdrawals:pay': () => commands['payouts:pay']!(),
  'providers:connect': async () => {
    need(2);
    return call('PUT', `/programs/${args[0]}/providers/${args[1]}`, {
      signing_secret: await readSecret(values),
      ...(values.label ? { label: values.label } : {}),
    });
  },
  'providers:show': () => call('GET', `/programs/${need(2)[0]}/providers/${args[1]}`),
  'providers:api-key': async () => {
    need(2);
    const apiKey = values.clear ? null : await readSecret(values, 'key-env', 'the API key');
    return call('PATCH', `/programs/${args[0]}/providers/${args[1]}`, { api_key: apiKey });
  },
  'secrets:reseal': () => call('POST', '/sealed-secrets/reseal', {}),
  'statement-keys:rotate': () => call('POST', '/statement-keys/rotate', {}),
  'ledger:verify': () => call('POST', `/programs/${need(1)[0]}/ledger/verify`, {}),
  'rollups:check': () =>
    call('GET', `/programs/${need(1)[0]}/stats/check?${new URLSearchParams(flags() as Record<string, string>)}`),
  'secrets:add': async () => {
    need(2);
    if (!values.label) throw new Error('--label live|test is required');
    const expiresAt = values['expires-at'] ? { expires_at: values['expires-at'] } : {};
    return call('POST', `/programs/${args[0]}/providers/${args[1]}/secrets`, {
      secret: await readSecret(values),
      label: values.label,
      ...expiresAt,
    });
  },
  'secrets:list': () => call('GET', `/programs/${need(2)[0]}/providers/${args[1]}/secrets`),
  'secrets:expire': () =>
    call(
      'POST',
      `/programs/${need(3)[0]}/providers/${args[1]}/secrets/${args[2]}/expire`,
      values.at ? { at: values.at } : {},
    ),
  'secrets:remove': () => call('DELETE', `/programs/${need(3)[0]}/providers/${args[1]}/secrets/${args[2]}`),
  'events:endpoints:create': () =>
    call('POST', `/programs/${need(1)[0]}/event-endpoints`, {
      url: values['endpoint-url'],
      ...(typeof values.types === 'string' ? { event_types: values.types.split(',').map((s) => s.trim()) } : {}),
    }),
  'events:endpoints:list': () => call('GET', `/programs/${need(1)[0]}/event-endpoints`),
  'events:endpoints:update': () => {
    const { endpoint_url, types, ...rest } = flags();
    return call('PATCH', `/programs/${need(2)[0]}/event-endpoints/${args[1]}`, {
      ...rest,
      ...(endpoint_url !== undefined ? { url: endpoint_url } : {}),
      ...(typeof types === 'string' ? { event_types: types.split(',').map((s) => s.trim()) } : {}),
    });
  },
  'events:endpoints:rotate': () => call('POST', `/programs/${need(2)[0]}/event-endpoints/${args[1]}/rotate-secret`),
  'events:endpoints:expire-old': () =>
    call('POST', `/programs/${need(2)[0]}/event-endpoints/${args[1]}/expire-old-secret`),
  'events:deliveries': () =>
    call(
      'GET',
      `/programs/${need(2)[0]}/event-endpoints/${args[1]}/deliveries?${new URLSearchParams(flags() as Record<string, string>)}`,
    ),
  'events:replay': () => call('POST', `/programs/${need(2)[0]}/event-deliveries/${args[1]}/replay`),
  'webhooks:replay': () =>
    call('POST', `/programs/${need(1)[0]}/webhook-events/replay`, values.id ? { id: Number(values.id) } : {}),
};

const run = command.startsWith('import:') ? () => importCommand(command.slice(7), values, call) : commands[command];
if (!run) {
  console.error(`Unknown command "${command}"\n\n${HELP}`);
  process.exit(2);
}
try {
  const answer = await run();
  const field = typeof values.field === 'string' ? values.field : undefined;
  const json = values.json === true || !process.stdout.isTTY;
  if (command === 'ledger:verify') process.exit(printLedgerReport(answer, values.json === true));
  console.log(typeof answer === 'string' ? answer : render(answer, { json, field }));
} catch (err) {
  console.error(`error: ${(err as Error).message}`);
  process.exit(command === 'ledger:verify' ? 2 : 1);
}
