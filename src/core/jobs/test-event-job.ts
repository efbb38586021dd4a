import { z } from 'zod';

/**
 * Test traffic that is not a sale (tracker `trackTest`, CLI `test-event`, a test key's lead):
 * recorded as a test event only, never touching production data.
 */
export const testEventJobSchema = z.object({
  kind: z.literal('test_event'),
  origin: z.literal('test'),
  programId: z.number().int().positive(),
  /** Free-form data of the event (API `data`, or the lead's fields). */
  data: z.record(z.string(), z.unknown()).nullable(),
  receivedAt: z.string(),
});
export type TestEventJob = z.infer<typeof testEventJobSchema>;

/** The one place a test-event job is written out. */
export function buildTestEventJob(input: Omit<TestEventJob, 'kind' | 'origin'>): TestEventJob {
  return {
    kind: 'test_event',
    origin: 'test',
    programId: input.programId,
    data: input.data,
    receivedAt: input.receivedAt,
  };
}
