// `import:<source>` of the admin CLI: starts an import through the admin API, prints its progress
// (stderr) until it ends, then its report. The source's API key is read from the environment
// variable `--api-key-env` names, sent once, and never printed.
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

export async function importCommand(source: string, values: Record<string, string | true>, call: Call) {
  const program = values.program;
  const envName = values['api-key-env'];
  if (typeof program !== 'string') throw new Error('--program ID is required');
  if (typeof envName !== 'string') throw new Error('--api-key-env VAR (the variable holding the API key) is required');
  const apiKey = process.env[envName];
  if (!apiKey) throw new Error(`${envName} is not set: export the ${source} API key in it first`);
  const baseUrl = typeof values['base-url'] === 'string' ? values['base-url'] : undefined;
  const started = (await call('POST', `/programs/${program}/imports`, {
    source,
    api_key: apiKey,
    ...(baseUrl ? { base_url: baseUrl } : {}),
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
