/**
 * The outbound event schemas (event-schemas.ts) are the public contract of what a merchant's
 * endpoint receives. docs/outbound-events.md examples, read as JSON and never made by the
 * builders here, must each validate, one per type at least; a body missing a required field, with
 * a field too many or of the wrong type is refused; and `eventPayload`, which every outbox row goes
 * through, refuses an event its schema refuses.
 */
import { describe, expect, test } from 'vitest';
import { eventPayload } from '../../src/core/outbound/emit-events.ts';
import {
  OUTBOUND_EVENT_DATA,
  OUTBOUND_EVENT_SCHEMAS,
  outboundEventSchema,
} from '../../src/core/outbound/event-schemas.ts';
import { type OutboundEvent } from '../../src/core/outbound/event-types.ts';
import { OUTBOUND_EVENT_TYPES } from '../../src/core/shared/vocabulary.ts';
import { docEventExamples, type EventExample } from '../helpers/doc-event-examples.ts';

const examples = docEventExamples();
const example = (type: string): EventExample => structuredClone(examples.find((e) => e.type === type)!);

describe('docs/outbound-events.md examples', () => {
  test('every example is a valid outbound event', () => {
    for (const e of examples) {
      const r = outboundEventSchema.safeParse(e);
      expect(r.error?.issues ?? [], `${e.type}: ${JSON.stringify(e)}`).toEqual([]);
      // The schema adds and drops nothing: the example is what the schema gives back.
      expect(r.data).toEqual(e);
    }
  });

  test('every event type has an example, and only those types do', () => {
    expect(new Set(examples.map((e) => e.type))).toEqual(new Set(OUTBOUND_EVENT_TYPES));
  });
});

describe('a body the contract does not describe is refused', () => {
  test.each([...OUTBOUND_EVENT_TYPES])('%s: without any one of its required fields', (type) => {
    const schema = OUTBOUND_EVENT_SCHEMAS[type];
    const full = example(type);
    expect(schema.safeParse(full).success).toBe(true);
    const optional = new Set(type === 'commission.updated' ? ['refund'] : []);
    const required = Object.keys(OUTBOUND_EVENT_DATA[type].shape).filter((k) => !optional.has(k));
    expect(required.length).toBeGreaterThan(3);
    for (const key of required) {
      const e = example(type);
      delete e.data[key];
      const r = outboundEventSchema.safeParse(e);
      expect(r.success, `${type} without data.${key}`).toBe(false);
      expect(r.error!.issues.map((i) => i.path)).toEqual([['data', key]]);
    }
    for (const key of ['type', 'timestamp', 'data'] as const) {
      const e: Partial<EventExample> = example(type);
      delete e[key];
      expect(outboundEventSchema.safeParse(e).success, `${type} without ${key}`).toBe(false);
    }
  });

  test('a field too many, a wrong type, an unknown type or change, a non-UTC time', () => {
    const refused = (e: unknown) => outboundEventSchema.safeParse(e).success === false;
    const sale = example('sale.created');
    expect(refused({ ...sale, data: { ...sale.data, tax_cents: 0 } })).toBe(true);
    expect(refused({ ...sale, extra: true })).toBe(true);
    expect(refused({ ...sale, data: { ...sale.data, amount_cents: '4900' } })).toBe(true);
    expect(refused({ ...sale, data: { ...sale.data, amount_cents: 49.5 } })).toBe(true);
    expect(refused({ ...sale, type: 'sale.updated' })).toBe(true);
    expect(refused({ ...sale, timestamp: '2026-11-25T10:05:00+07:00' })).toBe(true);
    const updated = example('commission.updated');
    expect(refused({ ...updated, data: { ...updated.data, change: 'cancelled' } })).toBe(true);
    // A `commission.created` body is not a `commission.updated` one: the type decides the schema.
    expect(refused({ ...example('commission.created'), type: 'commission.updated' })).toBe(true);
    const { refund: _, ...withoutRefund } = updated.data;
    expect(refused({ ...updated, data: withoutRefund })).toBe(false);
  });

  test('eventPayload, which every outbox row is written with, refuses what the schema refuses', () => {
    const { data } = example('payout.paid');
    delete data.commission_ids;
    const drifted = { type: 'payout.paid', data } as unknown as OutboundEvent;
    expect(() => eventPayload(drifted, new Date())).toThrow(
      /outbound event payout\.paid does not match.*commission_ids/s,
    );
    // The same event with the field sends the bytes built, unchanged.
    const ok = { type: 'payout.paid', data: { ...data, commission_ids: [9] } } as unknown as OutboundEvent;
    const at = new Date('2026-12-01T09:30:00.000Z');
    expect(eventPayload(ok, at)).toBe(
      JSON.stringify({ type: 'payout.paid', timestamp: at.toISOString(), data: ok.data }),
    );
  });
});

test('the union covers every type', () => {
  expect(outboundEventSchema.options.map((o) => o.shape.type.value)).toEqual([...OUTBOUND_EVENT_TYPES]);
  expect(Object.keys(OUTBOUND_EVENT_SCHEMAS)).toEqual([...OUTBOUND_EVENT_TYPES]);
});
