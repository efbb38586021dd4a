import type { CoreDeps } from '../deps.ts';
import { TestEvent } from '../entities/test-event.ts';
import type { TestEventJob } from '../jobs/test-event-job.ts';

/** A recorded test event: test traffic only, production data untouched. */
export type TestEventResult = { kind: 'test'; eventId: number; programId: number };

/** Records one test event (tracker `trackTest`, CLI `test-event`, a test key's lead). */
export async function recordTestEvent(deps: CoreDeps, job: TestEventJob): Promise<TestEventResult> {
  const em = deps.em;
  const event = em.create(TestEvent, {
    program: job.programId,
    kind: 'event',
    transactionId: null,
    amountCents: null,
    currency: 'USD',
    payload: { origin: job.origin, programId: job.programId, additionalData: job.data, receivedAt: job.receivedAt },
    createdAt: new Date(job.receivedAt),
  });
  await em.flush();
  return { kind: 'test', eventId: event.id, programId: job.programId };
}
