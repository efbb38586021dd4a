import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig, metricsEnabled } from '../../src/config.ts';
import { bearer, clickAndLead, createHarness, createProgramFixture, type Harness } from '../helpers/harness.ts';
import { scrapeMetrics } from '../helpers/scrape-metrics.ts';

const TOKEN = 'metrics-token-0123456789';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('METRICS_ENABLED', () => {
  test('defaults to collecting only when the metrics can be scraped (METRICS_TOKEN set)', () => {
    expect(metricsEnabled(loadConfig({}))).toBe(false);
    expect(metricsEnabled(loadConfig({ METRICS_TOKEN: TOKEN }))).toBe(true);
    expect(metricsEnabled(loadConfig({ METRICS_TOKEN: TOKEN, METRICS_ENABLED: 'false' }))).toBe(false);
    expect(metricsEnabled(loadConfig({ METRICS_ENABLED: 'true' }))).toBe(true);
    expect(() => loadConfig({ METRICS_ENABLED: 'maybe' })).toThrow(/METRICS_ENABLED/);
  });

  test('false with a token: a sale answers as before, /metrics has the scrape-time gauges and no request, job, money or process series', async () => {
    h = await createHarness({ METRICS_TOKEN: TOKEN, METRICS_ENABLED: 'false' });
    const f = await createProgramFixture(h, { commission_rate_bps: 1000 });
    await clickAndLead(h, f, 'off-user-1');
    const sale = await h.request('/api/v1/track/sale', {
      body: { transaction_id: 'off-tx-1', amount_cents: 10_000, customer_key: 'off-user-1' },
      headers: bearer(f.liveKey),
    });
    expect(sale.status).toBe(200);
    expect(sale.body).toMatchObject({ success: true, message: 'Sale recorded and commission created' });
    const s = await scrapeMetrics(h, TOKEN);
    const names = s.families.map((m) => m.name);
    expect(names).toContain('tracker_queue_jobs');
    expect(names).toContain('tracker_notification_outbox_pending');
    for (const name of [
      'tracker_http_request_duration_seconds',
      'tracker_jobs_total',
      'tracker_sales_total',
      'tracker_commission_amount_cents_total',
    ])
      expect(names).not.toContain(name);
    expect(names.some((n) => n.startsWith('tracker_process_'))).toBe(false);
  });
});
