/** Benchmark output: the Markdown table and the hand-written SVG chart (no dependencies). */

export type Row = {
  case: string;
  concurrency: number;
  rps: number;
  /** Throughput divided by the raw-pg baseline at the same concurrency (null for the baseline). */
  ratio: number | null;
  latency: { p50: number; p90: number; p99: number; max: number };
  errors: number;
  /** Peak resident memory of the service process during the run (sampled VmRSS), MiB. */
  peakRssMiB: number | null;
  consistent: boolean | null;
  /** Service CPU time per successful request (ms) and the host's busy share over all cores (%). */
  cpu?: {
    serviceMsPerRequest: number | null;
    serviceSystemMsPerRequest?: number | null;
    hostBusyPct: number;
    cores?: Record<string, number>;
    /** Instructions the service executed per successful request (BENCH_CALLGRIND runs only). */
    instructionsPerRequest?: number | null;
  };
  note?: string;
};

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

const fmt = (v: number | null | undefined, digits = 0) =>
  v === null || v === undefined || Number.isNaN(v) ? '–' : v.toFixed(digits);

export function markdownTable(rows: Row[]): string {
  const head =
    '| case | conns | req/s | × raw pg | p50 ms | p90 ms | p99 ms | max ms | errors | peak RSS MiB | service CPU ms/req | host CPU busy | consistent |';
  const sep = '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|';
  const body = rows.map(
    (r) =>
      `| ${r.case}${r.note ? ` (${r.note})` : ''} | ${r.concurrency} | ${fmt(r.rps)} | ${r.ratio === null ? '1.00' : fmt(r.ratio, 2)} | ${fmt(r.latency.p50, 1)} | ${fmt(r.latency.p90, 1)} | ${fmt(r.latency.p99, 1)} | ${fmt(r.latency.max, 1)} | ${r.errors} | ${fmt(r.peakRssMiB)} | ${fmt(r.cpu?.serviceMsPerRequest, 2)} | ${r.cpu ? `${r.cpu.hostBusyPct}%` : '–'} | ${r.consistent === null ? '–' : r.consistent ? 'yes' : '**NO**'} |`,
  );
  return [head, sep, ...body].join('\n');
}

const COLORS = ['#444444', '#1f77b4', '#ff7f0e', '#2ca02c', '#98df8a', '#d62728', '#9467bd'];

/** Throughput (req/s) against concurrency, one line per case; x positions are evenly spaced levels. */
export function throughputSvg(
  series: Array<{ name: string; points: Array<{ x: number; y: number }> }>,
  title: string,
): string {
  const W = 760,
    H = 420,
    L = 70,
    R = 190,
    T = 40,
    B = 50;
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const maxY = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.y)));
  const step = niceStep(maxY / 5);
  const top = Math.ceil(maxY / step) * step;
  const px = (x: number) => L + (xs.length === 1 ? (W - L - R) / 2 : (xs.indexOf(x) * (W - L - R)) / (xs.length - 1));
  const py = (y: number) => T + (H - T - B) * (1 - y / top);
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${W / 2 - R / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${esc(title)}</text>`,
  ];
  for (let y = 0; y <= top + 1e-9; y += step) {
    out.push(`<line x1="${L}" x2="${W - R}" y1="${py(y).toFixed(1)}" y2="${py(y).toFixed(1)}" stroke="#e0e0e0"/>`);
    out.push(`<text x="${L - 8}" y="${(py(y) + 4).toFixed(1)}" text-anchor="end">${Math.round(y)}</text>`);
  }
  for (const x of xs) out.push(`<text x="${px(x).toFixed(1)}" y="${H - B + 18}" text-anchor="middle">${x}</text>`);
  out.push(
    `<line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#000"/>`,
    `<line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#000"/>`,
  );
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">concurrent connections</text>`);
  out.push(
    `<text transform="translate(18 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">requests per second</text>`,
  );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = s.points.slice().sort((a, b) => a.x - b.x);
    const dash = s.name.startsWith('raw pg') ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2"${dash} points="${pts.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const p of pts)
      out.push(
        `<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${color}"><title>${esc(s.name)} @${p.x}: ${Math.round(p.y)} req/s</title></circle>`,
      );
    const ly = T + 10 + i * 20;
    out.push(
      `<line x1="${W - R + 15}" x2="${W - R + 40}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`,
    );
    out.push(`<text x="${W - R + 46}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function niceStep(raw: number): number {
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
}
