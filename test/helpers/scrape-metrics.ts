import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import type { Harness } from './harness.ts';

export type Scrape = {
  families: MetricFamily[];
  /** A counter or gauge sample (0 when absent): every given label must match. */
  value(name: string, labels?: Record<string, string>): number;
  /** A histogram's observation count over the samples whose labels match. */
  count(name: string, labels?: Record<string, string>): number;
};

/** GET /metrics with the token, parsed with a Prometheus text-format parser (throws if malformed). */
export async function scrapeMetrics(h: Harness, token: string): Promise<Scrape> {
  const res = await h.request('/metrics', { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`/metrics → ${res.status} ${JSON.stringify(res.body)}`);
  if (!res.headers.get('content-type')?.startsWith('text/plain; version=0.0.4'))
    throw new Error(`unexpected content type ${res.headers.get('content-type')}`);
  const families = parsePrometheusTextFormat(res.body as string);
  // The parser flattens labelled histograms into one sample, so their per-series counts are read
  // from prom-client's own snapshot of the same registry, taken right after the scrape.
  const histograms = (await h.ctx.metrics.registry.getMetricsAsJSON())
    .filter((m) => String(m.type) === 'histogram')
    .map((m) => ({
      name: m.name,
      values: m.values as Array<{ metricName?: string; labels: Record<string, string | number>; value: number }>,
    }));
  const matching = (name: string, labels: Record<string, string>) =>
    (families.find((f) => f.name === name)?.metrics ?? []).filter((m) =>
      Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
    );
  return {
    families,
    value: (name, labels = {}) => matching(name, labels).reduce((sum, m) => sum + Number(m.value ?? 0), 0),
    count: (name, labels = {}) =>
      (histograms.find((m) => m.name === name)?.values ?? [])
        .filter(
          (v) =>
            v.metricName === `${name}_count` &&
            Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want),
        )
        .reduce((sum, v) => sum + v.value, 0),
  };
}
