import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { createProviderAdapters } from '../../src/providers/registry.ts';
import { CTX } from './fixtures/clock.ts';

const docs = readFileSync(new URL('../../docs/providers.md', import.meta.url), 'utf8');
const section = docs.slice(
  docs.indexOf('## Provider events and what they do'),
  docs.indexOf('## Refunds from two sources'),
);
const NAMES: Record<string, string> = {
  Stripe: 'stripe',
  Paddle: 'paddle',
  'Lemon Squeezy': 'lemonsqueezy',
  Polar: 'polar',
  Dodo: 'dodo',
  Creem: 'creem',
  PayOS: 'payos',
  SePay: 'sepay',
};

/** `| Provider | \`event\` | becomes | ... |` rows of the provider × event table. */
const rows = [...section.matchAll(/^\| ([A-Za-z ]+) \| `([^`]+)` \| ([^|]+) \|/gm)].map((m) => ({
  provider: NAMES[m[1]!.trim()],
  event: m[2]!,
  becomes: m[3]!.trim(),
}));
const adapters = createProviderAdapters();

test.each(Object.values(adapters).map((a) => ({ name: a.name, adapter: a })))(
  'docs/providers.md lists exactly the event types the $name adapter handles, once each',
  ({ name, adapter }) => {
    const documented = rows.filter((r) => r.provider === name).map((r) => r.event);
    expect(documented.length).toBe(new Set(documented).size);
    expect([...documented].sort()).toEqual([...adapter.eventTypes].sort());
  },
);

test('every row names a known provider and what the event becomes', () => {
  expect(rows.length).toBeGreaterThan(20);
  for (const r of rows) {
    expect(r.provider, JSON.stringify(r)).toBeDefined();
    expect(
      r.becomes
        .split(', ')
        .every((b) => ['sale', 'renewal', 'refund', 'chargeback', 'review', 'link', 'payout failure'].includes(b)),
      JSON.stringify(r),
    ).toBe(true);
  }
});

test('an event type an adapter does not list is unhandled', () => {
  for (const adapter of Object.values(adapters)) {
    expect(adapter.eventTypes).not.toContain('customer.created');
    const event = {
      type: 'customer.created',
      event_type: 'customer.created',
      eventType: 'customer.created',
      id: 'evt_1',
      event_id: 'evt_1',
      meta: { event_name: 'customer.created' },
      data: { id: 'x', object: { id: 'x' } },
      object: { id: 'x' },
    };
    expect(adapter.normalise(event, CTX).ignoredReason, adapter.name).toBe('unhandled_event_type');
  }
});
