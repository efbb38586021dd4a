/**
 * The server client (`createTrackerClient`) against a recording stub of the remote API
 * (test-http-server.ts): every tracking route answers 200 unless a test configures otherwise.
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createTrackerClient, type TrackerClient } from '../../tracker/src/client.ts';
import { startTestServer, type TestServer } from './test-http-server.ts';

export const API_KEY = 'sk_test_4f9c2e7a1b';

/** Starts the stub and a client of it for the file; each test starts with no requests and the default answers. */
export function useStubbedClient(): { server: () => TestServer; client: () => TrackerClient } {
  let server: TestServer;
  let client: TrackerClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = createTrackerClient({ apiKey: API_KEY, apiUrl: server.url + '/' });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    for (const path of ['lead', 'sale', 'refund', 'click']) {
      server.on('POST', `/api/v1/track/${path}`, { status: 200, body: { success: true, path } });
    }
    server.on('GET', '/api/v1/cli/status', { status: 200, body: { program_id: 7 } });
  });
  return { server: () => server, client: () => client };
}

/** The one request the stub received, which went to `path`. */
export function onlyRequest(server: TestServer, path: string) {
  expect(server.requests.map((r) => r.path)).toEqual([path]);
  return server.requests[0]!;
}
