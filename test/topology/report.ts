/**
 * The figures of one run: error counts and the longest time without an acknowledgement around each
 * fault, as a table printed and written to test/topology/last-result.md with the date and the host.
 */
import { writeFileSync } from 'node:fs';
import { cpus, hostname, release, totalmem } from 'node:os';
import type { Sample } from './load.ts';

export type FaultWindow = { name: string; from: number; recovered: number; to: number };

export type FaultFigures = {
  name: string;
  recoveredSeconds: number;
  requests: number;
  longestNoAckSeconds: number;
  errors: Record<string, number>;
};

const WRITES = new Set(['click', 'sale', 'refund', 'webhook']);
const acked = (s: Sample) => WRITES.has(s.kind) && ((s.status >= 200 && s.status < 300) || s.status === 409);

/** Requests started in the window, their non-2xx answers by kind and status, the longest ack gap. */
export function faultFigures(samples: Sample[], w: FaultWindow): FaultFigures {
  const inWindow = samples.filter((s) => s.start >= w.from && s.start < w.to);
  const errors: Record<string, number> = {};
  for (const s of inWindow) {
    if (s.status >= 200 && s.status < 300) continue;
    const key = `${s.kind} ${s.status || 'no answer'}${s.balancer ? ' (HAProxy)' : ''}`;
    errors[key] = (errors[key] ?? 0) + 1;
  }
  const acks = samples
    .filter(acked)
    .map((s) => s.end)
    .sort((a, b) => a - b);
  const before = acks.filter((t) => t < w.from).at(-1) ?? w.from;
  const after = acks.find((t) => t > w.to) ?? w.to;
  const points = [before, ...acks.filter((t) => t >= w.from && t <= w.to), after];
  const gap = Math.max(...points.slice(1).map((t, k) => t - points[k]!));
  return {
    name: w.name,
    recoveredSeconds: (w.recovered - w.from) / 1000,
    requests: inWindow.length,
    longestNoAckSeconds: gap / 1000,
    errors,
  };
}

export type RunResult = {
  date: string;
  versions: Record<string, string>;
  loadRate: number;
  throughput: { twoWorkers: [number, number]; oneWorker: number };
  faults: FaultFigures[];
  totals: Record<string, string>;
  /** The PostgreSQL read replica's fault, as the test words it. */
  replica: Record<string, string>;
  checks: Record<string, string>;
};

export function hostFacts(): string {
  const c = cpus();
  return `${hostname()}: ${c.length} × ${c[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}`;
}

const fmtErrors = (e: Record<string, number>) =>
  Object.entries(e)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ') || 'none';

export function renderResult(r: RunResult): string {
  return [
    '# Last topology run',
    '',
    `Written by \`npm run test:topology\` on ${r.date}.`,
    '',
    `- Host: ${hostFacts()}`,
    ...Object.entries(r.versions).map(([k, v]) => `- ${k}: ${v}`),
    `- Steady load: ${r.loadRate} operations/s through HAProxy`,
    '',
    '| Figure | Value |',
    '|---|---|',
    `| Throughput, two workers | ${r.throughput.twoWorkers[0].toFixed(1)} acknowledged API sales/s |`,
    `| Throughput, one worker (the other stopped) | ${r.throughput.oneWorker.toFixed(1)} acknowledged API sales/s |`,
    `| Throughput, two workers again | ${r.throughput.twoWorkers[1].toFixed(1)} acknowledged API sales/s |`,
    ...Object.entries(r.totals).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    '| Fault | Recovered after (s) | Requests in window | Longest time without an acknowledgement (s) | Errors by status |',
    '|---|---|---|---|---|',
    ...r.faults.map(
      (f) =>
        `| ${f.name} | ${f.recoveredSeconds.toFixed(1)} | ${f.requests} | ${f.longestNoAckSeconds.toFixed(2)} | ${fmtErrors(f.errors)} |`,
    ),
    '',
    '| Read replica stopped and restarted | Value |',
    '|---|---|',
    ...Object.entries(r.replica).map(([k, v]) => `| ${k} | ${v} |`),
    '',
    '| Check | Result |',
    '|---|---|',
    ...Object.entries(r.checks).map(([k, v]) => `| ${k} | ${v} |`),
    '',
  ].join('\n');
}

export function writeResult(r: RunResult): string {
  const text = renderResult(r);
  writeFileSync(new URL('./last-result.md', import.meta.url), text);
  return text;
}
