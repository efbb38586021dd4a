import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Program } from './program.ts';
import type { PayoutRail } from '../shared/vocabulary.ts';

/**
 * One payout run: the `processing` payouts it created in one currency for one rail. A scheduled
 * run names the day it was due (`scheduledFor`, `YYYY-MM-DD`), unique per program and currency, so
 * the schedule never runs twice for one day.
 */
export const PayoutRun = defineEntity({
  name: 'PayoutRun',
  uniques: [{ properties: ['program', 'currency', 'scheduledFor'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    program: () => p.manyToOne(Program).mapToPk().index(),
    rail: p.string().$type<PayoutRail>(),
    currency: p.string().length(3),
    /** Only commissions credited before this instant were paid (the schedule's hold). */
    creditedBefore: p.datetime(),
    scheduledFor: p.string().length(10).nullable(),
    payoutCount: p.integer().default(0),
    totalCents: p.bigint('number').default(0),
    createdAt: p.datetime(),
  },
});
export type IPayoutRun = InferEntity<typeof PayoutRun>;
