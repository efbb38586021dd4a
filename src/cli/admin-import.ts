// `import:<source>` of the admin CLI: starts an import through the admin API, prints its progress
// (stderr) until it ends, then its report. The source's API key is read from the environment
// variable `--api-key-env` names, sent once, and never printed; or, with `--csv-dir DIR`, every
// `*.csv` file of DIR is sent by name (where the source documents its CSV layout).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;
type Counts = Record<string, { created: number; skipped: number; problems: number }>;
type Run = { id: number; status: string; error: string | null; report: { counts: Counts } };

const POLL_MS = 500;

const summary = (counts: Counts) =>
  Object.entries(counts)
    .map(([kind, c]) => `${kind}s ${c.created} created, ${c.skipped} skipped, ${c.problems} problems`)
    .join('; ');

/** The server's 400 `url_not_allowed` for `--base-url`, said plainly (null: another error). */
function refusedBaseUrl(err: Error, baseUrl: string | undefined): Error | null {
  const refused = /^400 url_not_allowed: base_url is refused: (.*) \((?:POST|GET) [^)]*\)$/.exec(err.message);
  if (!refused || !baseUrl) return null;
  return new Error(
    `--base-url ${baseUrl} is not allowed: ${refused[1]}. The server reaches only public https:// addresses ` +
      'unless its OUTBOUND_ALLOW_HOSTS setting lists the host (docs/configuration.md).',
  );
}

/** The `*.csv` files of `dir` by name without `.csv`, lower-cased (`Affiliates.CSV` → `affiliates`). */
function csvFiles(dir: string): Record<string, string> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.toLowerCase().endsWith('.csv'));
  } catch (err) {
    throw new Error(`--csv-dir ${dir}: ${(err as Error).message}`, { cause: err });
  }
  if (!names.length) throw new Error(`--csv-dir ${dir} holds no .csv file`);
  return Object.fromEntries(names.map((n) => [n.slice(0, -4).toLowerCase(), readFileSync(join(dir, n), 'utf8')]));
}

/** What identifies the source: the API key (from the variable `--api-key-env` names) or the CSV files. */
function sourceInput(source: string, values: Record<string, string | true>): Record<string, unknown> {
  const envName = values['api-key-env'];
  const dir = values['csv-dir'];
  if (typeof dir === 'string') {
    if (envName !== undefined) throw new Error('give --api-key-env or --csv-dir, not both');
    return { csv: csvFiles(dir) };
  }
  if (typeof envName !== 'string')
    throw new Error('--api-key-env VAR (the variable holding the API key) or --csv-dir DIR is required');
  const apiKey = process.env[envName];
  if (!apiKey) throw new Error(`${envName} is not set: export the ${source} API key in it first`);
  return {
    api_key: apiKey,
    ...(typeof values['base-url'] === 'string' ? { base_url: values['base-url'] } : {}),
  };
}

export async function importCommand(source: string, values: Record<string, string | true>, call: Call) {
  const program = values.program;
  if (typeof program !== 'string') throw new Error('--program ID is required');
  const baseUrl = typeof values['base-url'] === 'string' ? values['base-url'] : undefined;
  const started = (await call('POST', `/programs/${program}/imports`, {
    source,
    ...sourceInput(source, values),
    dry_run: values['dry-run'] === true,
  }).catch((err: Error) => {
    throw refusedBaseUrl(err, baseUrl) ?? err;
  })) as { import: Run };
  const path = `/programs/${program}/imports/${started.import.id}`;
  console.error(`import ${started.import.id} from ${source} started${values['dry-run'] === true ? ' (dry run)' : ''}`);
  let last = '';
  for (;;) {
    const { import: run } = (await call('GET', path)) as { import: Run };
    const line = summary(run.report.counts);
    if (line !== last) console.error(line);
    last = line;
    if (run.status === 'failed') throw new Error(`import ${run.id} failed: ${run.error ?? 'unknown error'}`);
    if (run.status !== 'running') return { import: run };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
