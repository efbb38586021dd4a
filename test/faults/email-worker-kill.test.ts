/**
 * SIGKILL the worker while it is sending an email (the SMTP server has the message's data and has
 * not answered yet), start another: the email is delivered again once the killed worker's lease
 * expires, under the same Message-ID; no email is lost, and this is the one duplicate the outbox
 * allows (the first copy reached the server before the kill). Real processes, a real SMTP server
 * (`smtp-server`) on 127.0.0.1.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { adminCall } from '../helpers/load-fixture.ts';
import { startMailbox, type Mailbox } from '../applications/smtp-mailbox.ts';
import { createFaultEnv, waitFor, type FaultEnv } from './fault-env.ts';

let mailbox: Mailbox;
let env: FaultEnv;

beforeAll(async () => {
  mailbox = await startMailbox({ holdFirst: true });
  env = await createFaultEnv({
    roles: ['http', 'worker'],
    customers: 5,
    partners: 1,
    env: {
      SMTP_URL: mailbox.url,
      EMAIL_LEASE_MS: '3000',
      SWEEP_INTERVAL_MS: '300',
      APPLICATION_LIMIT_PER_MINUTE: '1000',
    },
  });
});
afterAll(async () => {
  await env?.close();
  await mailbox?.stop().catch(() => {});
});

test('a worker killed mid-send: the email goes again after the lease, once, with the same Message-ID', async () => {
  const f = env.fixture;
  await adminCall(env.http.url, env.adminToken, 'PUT', `/programs/${f.programId}/application-form`, {
    enabled: true,
  });
  const r = await fetch(`${env.http.url}/api/v1/programs/${f.programId}/applications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Kill Test', email: 'kill.test@example.com' }),
  });
  expect(r.status).toBe(201);

  // The worker sent the data and waits for the server's answer, which is held.
  await waitFor('the email to reach the SMTP server', 30_000, async () => mailbox.received.length === 1);
  const worker = env.procs.find((p) => p.role === 'worker')!;
  worker.signal('SIGKILL');
  expect(await worker.exited).toBe('SIGKILL');
  mailbox.release();
  const killedAt = Date.now();
  await env.start('worker');

  await waitFor('the email to be sent again', 60_000, async () => mailbox.received.length >= 2);
  const row = async () =>
    (await env.db.pool.query('select sent_at, attempts from email_message order by id')).rows as Array<{
      sent_at: Date | null;
      attempts: number;
    }>;
  await waitFor('the outbox to mark it sent', 15_000, async () => (await row())[0]?.sent_at != null);
  // Several more sweeps: nothing else goes out.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const [first, second] = mailbox.received;
  expect(mailbox.received).toHaveLength(2);
  expect(second!.messageId).toBe(first!.messageId);
  expect(second!.subject).toBe(first!.subject);
  expect(await row()).toEqual([{ sent_at: expect.any(Date), attempts: 2 }]);
  console.log(
    `email worker kill: sent again ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill at the latest; 1 duplicate, same Message-ID`,
  );
});
