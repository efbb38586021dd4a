import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';

export type TestEventKind = 'sale' | 'event';

/** Test traffic, kept apart from every production table; never creates a commission. */
export const TestEvent = defineEntity({
  name: 'TestEvent',
  uniques: [{ properties: ['program', 'transactionId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk(),
    kind: p.string().$type<TestEventKind>(),
    /** Test sales may omit it; when given, a replay returns the first event. */
    transactionId: p.string().nullable(),
    amountCents: p.bigint('number').nullable(),
    currency: p.string().nullable(),
    payload: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ITestEvent = InferEntity<typeof TestEvent>;
