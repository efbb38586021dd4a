/**
 * Builds the dashboard single-page app with Vite: `node dashboard/build.ts`.
 * The service runs this file in a child process at start and before serving it when the bundle is
 * stale (Vite never loads into the service), so a fresh clone or edited sources get a new bundle;
 * the test run does the same once in its global setup.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
export const DASHBOARD_DIST = join(root, 'dist');
const SOURCES = ['src', 'index.html', 'vite.config.ts'].map((p) => join(root, p));

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
  return Math.max(...SOURCES.map(newest)) > statSync(index).mtimeMs;
}

export async function buildDashboard(): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: join(root, 'vite.config.ts') });
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
