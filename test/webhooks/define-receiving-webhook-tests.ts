/**
 * End-to-end receiving scenarios every provider must pass (issue 4): connecting, secret rotation,
 * refused signatures and unknown endpoints. Written once against the ProviderKit interface and
 * registered by each provider's test file, before the sale scenarios (define-sale-webhook-tests.ts).
 */
import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, createProgramFixture } from '../helpers/harness.ts';
import type { WebhookHarness } from './webhook-harness.ts';
import { keysOf, newRef } from './scenario-steps.ts';

export function defineReceivingWebhookTests(w: WebhookHarness): void {
  const { kit } = w;

  describe(`${kit.provider}: receiving`, () => {
    test('connecting through the admin API answers the webhook URL and never echoes the secret', async () => {
      const { programId } = await w.newProgram();
      const res = await w.h.request(`/api/v1/admin/programs/${programId}/providers/${kit.provider}`, {
        method: 'PUT',
        body: { signing_secret: kit.secret },
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        connected: true,
        provider: kit.provider,
        program_id: programId,
        // Absolute under PUBLIC_BASE_URL (a listening harness sets it to its own address), else a path.
        webhook_url: `${w.h.ctx.config.PUBLIC_BASE_URL ?? ''}/api/v1/webhooks/${kit.provider}/${programId}`,
        api_key_set: false,
        api_key_hint: null,
      });
      expect(JSON.stringify(res.body)).not.toContain(kit.secret);
    });

    test('re-connecting with a new secret (rotation) takes effect at once: the old secret is refused', async () => {
      const f = await w.newProgram();
      const send = (secret: string) => {
        const body = JSON.stringify(kit.unhandled());
        return w.send(f.programId, body, kit.sign(body, w.h.clock.now, secret));
      };
      expect((await send(kit.secret)).status).toBe(200);
      const rotated = kit.rotatedSecret;
      await w.h.admin('PUT', `/programs/${f.programId}/providers/${kit.provider}`, { signing_secret: rotated });
      expect((await send(kit.secret)).body.error?.code).toBe('invalid_signature');
      expect((await send(rotated)).status).toBe(200);
    });

    const failures: Array<{
      label: string;
      deliver: (body: string, at: Date) => { body: string; headers: Record<string, string> };
    }> = [
      { label: 'unsigned', deliver: (body) => ({ body, headers: {} }) },
      {
        label: 'signed with another secret',
        deliver: (body, at) => ({ body, headers: kit.sign(body, at, 'another-secret-0123456789') }),
      },
      {
        label: 'tampered amount after signing',
        deliver: (body, at) => ({ body: body.replace('10000', '99999'), headers: kit.sign(body, at) }),
      },
      {
        label: 'a space added after signing',
        deliver: (body, at) => ({ body: body.replace('{', '{ '), headers: kit.sign(body, at) }),
      },
      {
        label: 'a trailing newline added after signing',
        deliver: (body, at) => ({ body: `${body}\n`, headers: kit.sign(body, at) }),
      },
      ...(kit.signExpired
        ? [
            {
              label: 'timestamp 301 s old',
              deliver: (body: string, at: Date) => ({ body, headers: kit.signExpired!(body, at) }),
            },
          ]
        : []),
    ];
    test.each(failures)('$label → 400 invalid_signature, nothing stored', async ({ deliver }) => {
      const f = await w.newProgram();
      const customer = await w.newCustomer(f);
      const body = JSON.stringify(
        kit.payment({ ref: newRef('bad'), amountCents: 10000, keys: keysOf(f, customer) }).event,
      );
      const bad = deliver(body, w.h.clock.now);
      const res = await w.send(f.programId, bad.body, bad.headers);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        data: null,
        error: {
          status: 400,
          name: 'BadRequestError',
          message: expect.any(String),
          details: { reason: expect.any(String) },
          code: 'invalid_signature',
        },
      });
      expect(JSON.stringify(res.body)).not.toContain(kit.secret);
      expect(await w.inbox(f.programId)).toEqual([]);
      expect(await w.list(f.programId, 'sales')).toEqual([]);
      expect(await w.list(f.programId, 'test-events')).toEqual([]);
    });

    test('unknown provider, unconnected program, unknown program → 404, nothing stored', async () => {
      const connected = await w.newProgram();
      // `unconnected` is a real program with no connection for this provider.
      const { programId: unconnected } = await createProgramFixture(w.h);
      const body = JSON.stringify(kit.payment({ ref: newRef('nf'), amountCents: 10000, keys: null }).event);
      const headers = kit.sign(body, w.h.clock.now);
      for (const path of [
        `/api/v1/webhooks/apipay/${connected.programId}`,
        `/api/v1/webhooks/${kit.provider}/${unconnected}`,
        `/api/v1/webhooks/${kit.provider}/999999`,
        `/api/v1/webhooks/${kit.provider}/abc`,
      ]) {
        const res = await w.post(path, body, headers);
        expect(res.status, path).toBe(404);
        expect(res.body.error.code, path).toBe('not_found');
      }
      for (const programId of [connected.programId, unconnected]) expect(await w.inbox(programId)).toEqual([]);
    });
  });
}
