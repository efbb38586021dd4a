/**
 * docs/outbound-events.md shows one payload per event type. They are made here, from fixed facts,
 * by the builders the use-cases call (event-data.ts) and the envelope every delivery is sent in
 * (`eventPayload`), and must be exactly what the page shows: a builder that changes fails this
 * test until the page says so. `WRITE_EVENT_EXAMPLES=1 npx vitest run test/core/outbound-event-examples.test.ts`
 * writes the page's block from them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import {
  commissionCreated,
  commissionUpdated,
  leadCreated,
  partnerCreated,
  payoutCreated,
  payoutFailed,
  payoutPaid,
  saleCreated,
  type CommissionFacts,
} from '../../src/core/outbound/event-data.ts';
import { eventPayload } from '../../src/core/outbound/emit-events.ts';
import { type OutboundEvent } from '../../src/core/outbound/event-types.ts';
import { OUTBOUND_EVENT_TYPES } from '../../src/core/shared/vocabulary.ts';
import type { IPayout } from '../../src/core/entities/payout.ts';
import type { IPartner } from '../../src/core/entities/partner.ts';

const PAGE = new URL('../../docs/outbound-events.md', import.meta.url);
const MARK = '<!-- outbound event examples: test/core/outbound-event-examples.test.ts -->';

const t = (iso: string) => new Date(`2026-${iso}Z`);
const CLICK = '5b0c9e1e-3f7a-4c1d-9a57-2f0e6b8d4c11';
const commission: CommissionFacts = {
  id: 9,
  saleId: 12,
  leadCustomerId: null,
  partnerId: 2,
  amountCents: 490,
  reversedCents: 0,
  currency: 'USD',
  status: 'pending',
  heldForReview: false,
  payoutId: null,
};
const payout = {
  id: 3,
  program: 1,
  partner: 2,
  amountCents: 390,
  currency: 'USD',
  status: 'processing',
  run: 4,
  rail: 'paypal',
  externalId: null,
  createdAt: t('12-01T09:00:00.000'),
  paidAt: null,
} as IPayout;
const partner = {
  id: 2,
  program: 1,
  code: 'jane',
  name: 'Jane Doe',
  email: 'jane@example.com',
  createdAt: t('11-20T08:00:00.000'),
} as IPartner;

/** One event of each type, in `OUTBOUND_EVENT_TYPES` order, with the time it is written at. */
const examples: Array<[OutboundEvent, Date]> = [
  [
    leadCreated({
      customerId: 7,
      customerKey: 'user_42',
      partnerId: 2,
      clickId: CLICK,
      createdAt: t('11-25T10:00:00.000'),
    }),
    t('11-25T10:00:00.000'),
  ],
  [
    saleCreated({
      id: 12,
      transactionId: 'pi_123',
      amountCents: 4900,
      currency: 'USD',
      customerId: 7,
      partnerId: 2,
      clickId: CLICK,
      productId: null,
      provider: null,
      isRecurring: false,
      occurredAt: null,
      receivedAt: t('11-25T10:05:00.000'),
    }),
    t('11-25T10:05:00.000'),
  ],
  [commissionCreated(commission), t('11-25T10:05:00.000')],
  [
    commissionUpdated({ ...commission, reversedCents: 100, status: 'refunded' }, 'refunded', {
      refund: { refund_id: 're_1', amount_cents: 1000, deduction_cents: 100 },
    }),
    t('11-26T09:00:00.000'),
  ],
  [payoutCreated(payout), t('12-01T09:00:00.000')],
  [payoutPaid({ ...payout, status: 'paid', paidAt: t('12-01T09:30:00.000') }, [9]), t('12-01T09:30:00.000')],
  [
    payoutFailed(
      { ...payout, status: 'failed', failedAt: t('12-02T08:00:00.000'), failureReason: 'recipient account closed' },
      [9],
    ),
    t('12-02T08:00:00.000'),
  ],
  [partnerCreated(partner), t('11-20T08:00:00.000')],
];

/** JSON with a space after `:` and `,` (the page's style). */
function spaced(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(spaced).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${spaced(x)}`)
      .join(', ')}}`;
  return JSON.stringify(v);
}

/** A payload as the page prints it: type and timestamp, then `data` wrapped at 110 columns. */
function format(payload: string): string {
  const p = JSON.parse(payload) as { type: string; timestamp: string; data: Record<string, unknown> };
  const lines = [`{"type": ${JSON.stringify(p.type)}, "timestamp": ${JSON.stringify(p.timestamp)},`];
  const fields = Object.entries(p.data).map(([k, v]) => `${JSON.stringify(k)}: ${spaced(v)}`);
  let line = ' "data": {';
  fields.forEach((f, i) => {
    const piece = f + (i < fields.length - 1 ? ',' : '}}');
    if (!line.endsWith('{') && line.length + 1 + piece.length > 110) {
      lines.push(line);
      line = ' '.repeat(10) + piece;
    } else line += (line.endsWith('{') ? '' : ' ') + piece;
  });
  return [...lines, line].join('\n');
}

test('docs/outbound-events.md shows one payload per event type, exactly as the builders make it', () => {
  expect(examples.map(([e]) => e.type)).toEqual([...OUTBOUND_EVENT_TYPES]);
  const block = ['```json', ...examples.map(([e, at]) => format(eventPayload(e, at))), '```'].join('\n');
  const page = readFileSync(PAGE, 'utf8');
  const start = page.indexOf(MARK);
  expect(start, `docs/outbound-events.md has no "${MARK}" line`).toBeGreaterThan(0);
  const from = start + MARK.length + 1;
  const to = page.indexOf('```\n', page.indexOf('```json', from) + 7) + 3;
  if (process.env.WRITE_EVENT_EXAMPLES === '1') writeFileSync(PAGE, page.slice(0, from) + block + page.slice(to));
  else expect(page.slice(from, to)).toBe(block);
  // What the page shows parses back to the payloads sent (the wrapping only adds whitespace).
  for (const [e, at] of examples)
    expect(JSON.parse(format(eventPayload(e, at)))).toEqual(JSON.parse(eventPayload(e, at)));
});
