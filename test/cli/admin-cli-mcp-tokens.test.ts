import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Harness } from '../helpers/harness.ts';
import { adminCli, startCliTarget } from './admin-cli-target.ts';

/** MCP tokens through the admin CLI: issued once with their scope, listed without the token, revoked. */
let h: Harness;
let url: string;
beforeAll(async () => {
  ({ h, url } = await startCliTarget());
});
afterAll(async () => {
  await h.close();
});
const admin = adminCli(() => url);

const initialize = (token: string) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cli-test', version: '1' } },
    }),
  });

test('mcp-tokens:issue prints the token once; mcp-tokens:list never shows it; mcp-tokens:revoke refuses it', async () => {
  const { program } = await admin('programs:create', '--name', 'Assistants');
  const issued = await admin('mcp-tokens:issue', String(program.id), '--scope', 'write', '--name', 'Ana');
  expect(issued.mcp_token).toMatchObject({ program: program.id, scope: 'write', name: 'Ana', revoked_at: null });
  expect(issued.token).toMatch(/^trk_mcp_/);
  expect((await initialize(issued.token)).status).toBe(200);
  const listed = await admin('mcp-tokens:list', String(program.id));
  expect(listed.mcp_tokens).toHaveLength(1);
  expect(JSON.stringify(listed)).not.toContain(issued.token);
  const revoked = await admin('mcp-tokens:revoke', String(program.id), String(issued.mcp_token.id));
  expect(revoked.mcp_token.revoked_at).not.toBeNull();
  expect((await initialize(issued.token)).status).toBe(401);
});
