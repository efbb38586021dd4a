/**
 * The figures of one soak run, printed and written to test/soak/last-result.md (with the date, the
 * host and the settings) so the committed file is the last full run.
 */
import { writeFileSync } from 'node:fs';
import { cpus, hostname, loadavg, release, totalmem } from 'node:os';
import type { FaultCounts } from './faults.ts';

export type SoakResult = {
  date: string;
  settings: Record<string, string | number>;
  faults: FaultCounts;
  missed: Record<string, number>;
  figures: Record<string, string | number>;
  checks: Record<string, string>;
};

const host = () => {
  const c = cpus();
  return `${hostname()}: ${c.length} × ${c[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}`;
};

export const loadAverage = () => loadavg()[0]!.toFixed(1);

export function renderResult(r: SoakResult): string {
  const total = Object.values(r.faults).reduce((a, b) => a + b, 0);
  const missed = Object.entries(r.missed)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
  return [
    '# Last soak run',
    '',
    `Written by \`npm run soak\` on ${r.date}.`,
    '',
    `- Host: ${host()}`,
    `- Settings: ${Object.entries(r.settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
    '',
    '| Fault | Injected |',
    '|---|---|',
    ...Object.entries(r.faults).map(([k, v]) => `| ${k} | ${v} |`),
    `| **all** | **${total}** |`,
    '',
    missed
      ? `Notes (a fault not injected: no target at that moment or its load busy; worker restarts): ${missed}.\n`
      : '',
    '| Figure | Value |',
    '|---|---|',
    ...Object.entries(r.figures).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    '| Check | Result |',
    '|---|---|',
    ...Object.entries(r.checks).map(([k, v]) => `| ${k} | ${v} |`),
    '',
  ]
    .filter((l, i, a) => !(l === '' && a[i - 1] === ''))
    .join('\n');
}

/** Writes the result; a short development run writes beside it (`last-result.short.md`, ignored). */
export function writeResult(r: SoakResult, full: boolean): string {
  const text = renderResult(r);
  writeFileSync(new URL(full ? './last-result.md' : './last-result.short.md', import.meta.url), text);
  return text;
}
