import { z } from 'zod';
import { clickJobSchema } from './click-job.ts';
import { leadJobSchema } from './lead-job.ts';
import { notifyJobSchema } from './notify-job.ts';
import { eventJobSchema } from './event-job.ts';
import { refundJobSchema } from './refund-job.ts';
import { saleJobSchema } from './sale-job.ts';
import { testEventJobSchema } from './test-event-job.ts';
import { webhookJobSchema } from './webhook-job.ts';

/**
 * The normalised job contract. Every direct API call and every provider webhook becomes one of
 * these plain-JSON jobs; workers run the matching core use-case. A job is parsed whenever it is
 * read back (worker, inbox replay): what travels through Redis or outlives a deploy is checked,
 * not trusted.
 */
export const trackJobSchema = z.discriminatedUnion('kind', [
  saleJobSchema,
  refundJobSchema,
  leadJobSchema,
  clickJobSchema,
  testEventJobSchema,
]);
export type TrackJob = z.infer<typeof trackJobSchema>;
export type TrackJobKind = TrackJob['kind'];

export const jobSchema = z.discriminatedUnion('kind', [
  ...trackJobSchema.options,
  webhookJobSchema,
  notifyJobSchema,
  eventJobSchema,
]);
export type Job = z.infer<typeof jobSchema>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Parses untrusted data with a schema; the reason names each bad field. */
export function parseWith<S extends z.ZodType>(schema: S, data: unknown): Parsed<z.output<S>> {
  const res = schema.safeParse(data);
  if (res.success) return { ok: true, value: res.data };
  const reason = res.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  return { ok: false, reason };
}
