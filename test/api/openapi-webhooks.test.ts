/**
 * The OpenAPI document's `webhooks`: one per outbound event type, each with its body's JSON
 * Schema and the signature headers. Checked with Ajv against what is sent: the docs/outbound-events.md examples
 * (read as JSON, not built), and the headers `signEvent` makes for a delivery; a body missing a
 * field, with one too many or of another type is refused by the published schema too.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, test } from 'vitest';
import { OUTBOUND_EVENT_TYPES } from '../../src/core/shared/vocabulary.ts';
import { signEvent } from '../../src/core/outbound/sign-event.ts';
import { buildOpenApiDocument } from '../../src/http/openapi/build-document.ts';
import { OPERATIONS } from '../../src/http/openapi/operations.ts';
import { docEventExamples } from '../helpers/doc-event-examples.ts';

type Json = Record<string, any>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
const doc = buildOpenApiDocument(OPERATIONS, { version: 'test' }) as Json;
const examples = docEventExamples();

const post = (type: string) => doc.webhooks[type].post as Json;
const bodyValidator = (type: string) => ajv.compile(post(type).requestBody.content['application/json'].schema);

describe('webhooks', () => {
  test('one per event type, tagged and described, with the three signature headers', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...OUTBOUND_EVENT_TYPES]);
    expect(doc.tags.map((t: Json) => t.name)).toContain('Outbound events');
    for (const type of OUTBOUND_EVENT_TYPES) {
      const op = post(type);
      expect(op.tags).toEqual(['Outbound events']);
      expect(op.description).toBeTruthy();
      expect(op.parameters.map((p: Json) => [p.name, p.in, p.required])).toEqual([
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      expect(op.requestBody.required).toBe(true);
      expect(Object.keys(op.responses)).toEqual(['2XX', 'default']);
    }
  });

  test.each([...OUTBOUND_EVENT_TYPES])("%s: its body schema takes the docs example and no other type's", (type) => {
    const valid = bodyValidator(type);
    for (const e of examples) {
      const ok = valid(e);
      expect(ok, `${type} schema on the ${e.type} example: ${ajv.errorsText(valid.errors)}`).toBe(e.type === type);
    }
  });

  test('a body missing a field, with a field too many or a wrong type is refused by the published schema', () => {
    const sale = examples.find((e) => e.type === 'sale.created')!;
    const valid = bodyValidator('sale.created');
    const { currency: _, ...withoutCurrency } = sale.data;
    expect(valid({ ...sale, data: withoutCurrency })).toBe(false);
    expect(valid.errors?.map((e) => e.params)).toContainEqual({ missingProperty: 'currency' });
    expect(valid({ ...sale, data: { ...sale.data, tax_cents: 0 } })).toBe(false);
    expect(valid({ ...sale, data: { ...sale.data, amount_cents: '4900' } })).toBe(false);
    const { timestamp: __, ...withoutTimestamp } = sale;
    expect(valid(withoutTimestamp)).toBe(false);
  });

  test('the headers a delivery is signed with (one secret, or two during a rotation) match the documented ones', () => {
    const secret = (n: number) => `whsec_${Buffer.alloc(32, n).toString('base64')}`;
    const payload = JSON.stringify(examples[0]);
    for (const secrets of [[secret(1)], [secret(2), secret(1)]]) {
      const headers: Record<string, string> = signEvent(
        secrets,
        `evt_${'0123456789abcdef'.repeat(2)}`,
        new Date('2026-11-25T10:00:00.000Z'),
        payload,
      );
      for (const p of post('lead.created').parameters as Json[]) {
        const valid = ajv.compile(p.schema);
        expect(valid(headers[p.name]), `${p.name}: ${headers[p.name]}`).toBe(true);
      }
    }
  });
});
