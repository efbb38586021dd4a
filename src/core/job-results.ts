import { z } from 'zod';
import type { RefundResult } from './refunds/apply-refund.ts';
import type { LeadResult } from './attribution/bind-lead.ts';
import { ERROR_CODES, type SerializedAppError } from './shared/errors.ts';
import type { ClickResult } from './attribution/record-click.ts';
import type { SaleResult } from './sales/record-sale.ts';
import type { TestEventResult } from './sales/record-test-event.ts';
import { type TrackJob, type TrackJobKind, type Parsed, parseWith } from './jobs/job.ts';

/** What each track job kind returns: enqueue-and-wait is typed by the job it sends. */
export type JobResults = {
  sale: SaleResult;
  refund: RefundResult;
  lead: LeadResult;
  click: ClickResult;
  test_event: TestEventResult;
};
export type JobResult<J extends TrackJob> = JobResults[J['kind']];

/** What a track job returns through the queue: the use-case result, or an expected error. */
export type TrackOutcome<R = JobResults[TrackJobKind]> =
  { ok: true; result: R } | { ok: false; error: SerializedAppError };

const id = z.number().int();
const testResult = z.object({ kind: z.literal('test'), eventId: id, programId: id });

// Results are checked when they come back from the queue (a worker of another version may
// have answered), so the types above are the schemas' outputs, not a promise.
const RESULT_SCHEMAS: { [K in TrackJobKind]: z.ZodType<JobResults[K]> } = {
  sale: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('attributed'),
      saleId: id,
      commissionId: id.nullable(),
      commissionCents: id.nullable(),
      /** Absent in results of workers that enqueued their deliveries themselves. */
      deliveryIds: z.array(id).optional(),
    }),
    z.object({ kind: z.literal('window_expired'), clickAgeDays: z.number(), windowDays: z.number() }),
    z.object({ kind: z.literal('duplicate'), saleId: id }),
    testResult,
  ]),
  refund: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('applied'),
      status: z.enum(['refunded', 'reversed']),
      deductionCents: id,
      balanceDeductionCents: id,
      commissionId: id,
      notificationIds: z.array(id),
      deliveryIds: z.array(id).optional(),
    }),
    z.object({ kind: z.literal('skipped'), reason: z.string(), commissionId: id }),
    z.object({ kind: z.literal('no_commission'), message: z.string() }),
    testResult,
  ]),
  lead: z.object({
    customerId: id,
    customerKey: z.string().nullable(),
    clickId: z.string().nullable(),
    rebound: z.boolean(),
    /** Absent in results of jobs run before rewards per lead. */
    commissionId: id.nullable().default(null),
    deliveryIds: z.array(id).optional(),
  }),
  click: z.object({ clickId: z.string(), partnerCode: z.string(), cookieWindowDays: z.number(), programId: id }),
  test_event: testResult,
};

const errorSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  details: z.record(z.string(), z.unknown()),
  fields: z.record(z.string(), z.unknown()),
});

function outcomeSchema<R>(result: z.ZodType<R>): z.ZodType<TrackOutcome<R>> {
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), result }),
    z.object({ ok: z.literal(false), error: errorSchema }),
  ]);
}

const OUTCOME_SCHEMAS: { [K in TrackJobKind]: z.ZodType<TrackOutcome<JobResults[K]>> } = {
  sale: outcomeSchema(RESULT_SCHEMAS.sale),
  refund: outcomeSchema(RESULT_SCHEMAS.refund),
  lead: outcomeSchema(RESULT_SCHEMAS.lead),
  click: outcomeSchema(RESULT_SCHEMAS.click),
  test_event: outcomeSchema(RESULT_SCHEMAS.test_event),
};

/** Parses what the queue returned for a job of `kind`. */
export function parseTrackOutcome<K extends TrackJobKind>(kind: K, data: unknown): Parsed<TrackOutcome<JobResults[K]>> {
  return parseWith(OUTCOME_SCHEMAS[kind], data);
}
