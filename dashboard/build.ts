/**
 * Builds the dashboard single-page app with Vite: `node dashboard/build.ts`.
 * The service runs this file in a child process at start and before serving it when the bundle is
 * stale (Vite never loads into the service), so a fresh clone or edited sources get a new bundle;
 * the test run does the same once in its global setup.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
export const DASHBOARD_DIST = join(root, 'dist');
const SOURCES = ['src', 'index.html', 'vite.config.ts'].map((p) => join(root, p));
/** The service's own modules the bundle holds code of (src/core/money.ts...), as the last build found them. */
const SHARED_LIST = join(DASHBOARD_DIST, 'shared-sources.json');

function sharedSources(): string[] {
  try {
    return (JSON.parse(readFileSync(SHARED_LIST, 'utf8')) as string[]).map((p) => join(root, p));
  } catch {
    return [];
  }
}

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** True when the bundle is missing or older than a source file (sources absent: never stale). */
export function dashboardIsStale(): boolean {
  const index = join(DASHBOARD_DIST, 'index.html');
  if (!existsSync(index)) return true;
  return Math.max(...[...SOURCES, ...sharedSources()].map(newest)) > statSync(index).mtimeMs;
}

export async function buildDashboard(): Promise<void> {
  const { build } = await import('vite');
  const result = await build({ configFile: join(root, 'vite.config.ts') });
  // Modules from outside dashboard/ and node_modules: a change to one of them makes the bundle stale too.
  const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) => ('output' in r ? r.output : []));
  const shared = new Set(
    outputs
      .flatMap((o) => (o.type === 'chunk' ? o.moduleIds : []))
      .filter((id) => isAbsolute(id) && !id.startsWith(root) && !id.includes('/node_modules/'))
      .map((id) => relative(root, id)),
  );
  writeFileSync(SHARED_LIST, JSON.stringify([...shared].sort()));
}

/** Builds when stale; `built` says whether it did. Throws when a build is needed but Vite is missing. */
export async function ensureDashboardBuilt(): Promise<{ built: boolean }> {
  if (!dashboardIsStale()) return { built: false };
  await buildDashboard();
  return { built: true };
}

function isMain(): boolean {
  try {
    return process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  await buildDashboard();
  console.log(`built ${DASHBOARD_DIST}`);
}
