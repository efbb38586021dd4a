/**
 * The real service on a random port for the server-client suites: a program on `shop.example` at
 * 10% and a client (`createTrackerClient`) with its live key.
 */
import { expect } from 'vitest';
import { createTrackerClient, type TrackerClient } from '../../tracker/src/client.ts';
import { createHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';

export type ClientTarget = { h: Harness; base: string; f: Fixture; client: TrackerClient };

export async function startClientTarget(): Promise<ClientTarget> {
  const h = await createHarness();
  const base = await h.listen();
  const f = await createProgramFixture(h, { domain: 'shop.example', commission_rate_bps: 1000 });
  return { h, base, f, client: createTrackerClient({ apiKey: f.liveKey, apiUrl: base }) };
}

export const link = (code: string) => `https://shop.example/pricing?aff=${code}`;

/** A click through the client (keyless) and a lead binding `customerKey` to it. */
export async function clickAndLeadVia(
  { client, f }: Pick<ClientTarget, 'client' | 'f'>,
  customerKey: string,
): Promise<string> {
  const click = await client.trackClick({ affiliateUrl: link(f.partnerCode) });
  const clickId = (click.data as { click_id: string }).click_id;
  const lead = await client.trackLead({ customerExternalId: customerKey, clickId });
  expect(lead.ok).toBe(true);
  return clickId;
}
