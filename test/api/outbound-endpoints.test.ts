/**
 * Outbound event endpoints end to end, both modes: secret rotation, tenancy, a tracking call that
 * answers the same with an unreachable endpoint, url checks, disabling after failures and replay.
 */
import { describe, expect, test } from 'vitest';
import { clickAndLead, createProgramFixture } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { useOutboundReceiver } from './outbound-receiver.ts';

const { h, plans, verifies, at, endpoint, sale } = useOutboundReceiver();

describe('outbound event endpoints', () => {
  test('rotation: both secrets verify during the overlap, only the new one after the old is expired', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['sale.created']);
    await clickAndLead(h, f, 'cust-rot');
    const rotated = await h.admin('POST', `/programs/${f.programId}/event-endpoints/${ep.id}/rotate-secret`);
    expect(rotated.secret).not.toBe(ep.secret);
    expect(rotated.endpoint.rotating).toBe(true);
    await sale(f, 'cust-rot');
    const overlap = await waitFor(() => at(ep.path)[0]);
    expect(String(overlap.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(ep.secret, overlap)).toBe(true);
    expect(verifies(rotated.secret, overlap)).toBe(true);
    // A second rotation during the overlap is refused, naming the field.
    const again = await h.request(`/api/v1/admin/programs/${f.programId}/event-endpoints/${ep.id}/rotate-secret`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-admin-token-0123456789-abcdef' },
    });
    expect(again.status).toBe(400);

    await h.admin('POST', `/programs/${f.programId}/event-endpoints/${ep.id}/expire-old-secret`);
    await sale(f, 'cust-rot');
    const after = await waitFor(() => at(ep.path)[1]);
    expect(verifies(rotated.secret, after)).toBe(true);
    expect(verifies(ep.secret, after)).toBe(false);
  });

  test("an endpoint of another program never receives this program's events", async () => {
    const mine = await createProgramFixture(h);
    const other = await createProgramFixture(h);
    const theirs = await endpoint(other);
    const ours = await endpoint(mine, ['sale.created']);
    await clickAndLead(h, mine, 'cust-tenancy');
    await sale(mine, 'cust-tenancy');
    await waitFor(() => at(ours.path).length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(at(theirs.path)).toHaveLength(0);
    const foreign = await h.request(`/api/v1/admin/programs/${other.programId}/event-endpoints/${ours.id}`, {
      method: 'PATCH',
      body: { enabled: false },
      headers: { authorization: 'Bearer test-admin-token-0123456789-abcdef' },
    });
    expect(foreign.status).toBe(404);
  });

  test('a tracking call answers the same with an unreachable endpoint', async () => {
    const f = await createProgramFixture(h);
    const g = await createProgramFixture(h);
    await h.admin('POST', `/programs/${f.programId}/event-endpoints`, { url: 'http://127.0.0.1:9/unreachable' });
    await clickAndLead(h, f, 'cust-x');
    await clickAndLead(h, g, 'cust-x');
    const withEndpoint = (await sale(f, 'cust-x', 4900)).body;
    const without = (await sale(g, 'cust-x', 4900)).body;
    const shape = (b: any) => ({ ...b, sale_id: 0, commission_id: 0 });
    expect(shape(withEndpoint)).toEqual(shape(without));
    expect(Object.keys(withEndpoint).sort()).toEqual(Object.keys(without).sort());
  });

  test('bad urls are refused naming the field', async () => {
    const f = await createProgramFixture(h);
    for (const url of ['http://example.com/hook', 'ftp://x', 'not a url', 'https://u:p@example.com/']) {
      const r = await h.request(`/api/v1/admin/programs/${f.programId}/event-endpoints`, {
        body: { url },
        headers: { authorization: 'Bearer test-admin-token-0123456789-abcdef' },
      });
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toContain('url');
    }
  });

  test('after consecutive failures the endpoint is disabled and the advertiser notified; replay resends', async () => {
    const f = await createProgramFixture(h);
    const ep = await endpoint(f, ['sale.created']);
    plans.set(ep.path, Array(8).fill(500));
    await clickAndLead(h, f, 'cust-dis');
    await sale(f, 'cust-dis');
    const disabled = await waitFor(async () => {
      const { endpoints } = await h.admin('GET', `/programs/${f.programId}/event-endpoints`);
      return endpoints[0].disabled_at ? endpoints[0] : false;
    });
    expect(disabled).toMatchObject({ active: false, enabled: true, consecutive_failures: 5 });
    const note = await waitFor(async () => {
      const { notifications } = await h.admin('GET', `/programs/${f.programId}/notifications?limit=50`);
      return notifications.find((n: any) => n.kind === 'advertiser_event_endpoint_disabled');
    });
    expect(note.payload).toMatchObject({ endpoint_id: ep.id, consecutive_failures: 5 });
    const { deliveries } = await waitFor(async () => {
      const r = await h.admin('GET', `/programs/${f.programId}/event-endpoints/${ep.id}/deliveries`);
      return r.deliveries[0]?.status === 'failed' && r;
    });
    expect(deliveries[0].last_status_code).toBe(500);
    expect(deliveries[0].last_response_excerpt).toBe('x'.repeat(256)); // of the 900 bytes answered
    // Nothing more is sent while disabled; re-enabled, a replay goes out under the same id.
    const sentBefore = at(ep.path).length;
    await sale(f, 'cust-dis');
    await new Promise((r) => setTimeout(r, 300));
    expect(at(ep.path)).toHaveLength(sentBefore);
    plans.set(ep.path, []);
    await h.admin('PATCH', `/programs/${f.programId}/event-endpoints/${ep.id}`, { enabled: true });
    await h.admin('POST', `/programs/${f.programId}/event-deliveries/${deliveries[0].id}/replay`);
    await waitFor(() => at(ep.path).length > sentBefore);
    expect(at(ep.path).at(-1)!.headers['webhook-id']).toBe(deliveries[0].event_id);
  });
});
