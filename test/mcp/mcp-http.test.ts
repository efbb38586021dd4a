import { beforeAll, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { useHarness } from '../helpers/harness.ts';
import { createMcpWorld, type McpWorld } from './mcp-fixture.ts';
import { mcpScenarios } from './mcp-scenarios.ts';

/** The MCP server over Streamable HTTP: the SDK's client against `/mcp` of a real server, both modes. */
const h = useHarness();
let base: string;
let world: McpWorld;

beforeAll(async () => {
  base = await h.listen();
  world = await createMcpWorld(h);
});

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', base), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe('MCP over Streamable HTTP', () => {
  mcpScenarios(h, () => world, connect);

  const initialize = (authorization?: string) =>
    fetch(new URL('/mcp', base), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
      }),
    });

  test('no token, an unknown one, an API key or a revoked one: 401; a GET: 405; the tracking API refuses MCP tokens', async () => {
    expect((await initialize()).status).toBe(401);
    expect((await initialize('Bearer trk_mcp_unknownunknownunknown')).status).toBe(401);
    expect((await initialize(`Bearer ${world.a.liveKey}`)).status).toBe(401);
    const issued = await h.admin('POST', `/programs/${world.a.programId}/mcp-tokens`, {});
    expect(issued.mcp_token).toMatchObject({ scope: 'read', revoked_at: null });
    expect(issued.token).toMatch(/^trk_mcp_/);
    const ok = await initialize(`Bearer ${issued.token}`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).result.serverInfo.name).toBe('partner-conversion-tracker');
    const listed = await h.admin('GET', `/programs/${world.a.programId}/mcp-tokens`);
    expect(listed.mcp_tokens.map((t: { id: number }) => t.id)).toContain(issued.mcp_token.id);
    expect(JSON.stringify(listed)).not.toContain(issued.token);
    await h.admin('POST', `/programs/${world.a.programId}/mcp-tokens/${issued.mcp_token.id}/revoke`);
    const refused = await initialize(`Bearer ${issued.token}`);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).error.code).toBe('unauthorized');
    expect((await fetch(new URL('/mcp', base))).status).toBe(405);
    // And an MCP token is no API key: the tracking API refuses it.
    const sale = await fetch(new URL('/api/v1/track/sale', base), {
      method: 'POST',
      headers: { authorization: `Bearer ${world.tokens.writeA}`, 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_id: 'mcp-as-key', amount_cents: 100, customer_key: 'c-plain' }),
    });
    expect(sale.status).toBe(401);
  });

  test("a token spends its program's per-key budget: past it, 429 rate_limited", async () => {
    const { program } = await h.admin('POST', '/programs', { name: 'Small budget', rate_limit_per_minute: 2 });
    const { token } = await h.admin('POST', `/programs/${program.id}/mcp-tokens`, {});
    expect((await initialize(`Bearer ${token}`)).status).toBe(200);
    expect((await initialize(`Bearer ${token}`)).status).toBe(200);
    const limited = await initialize(`Bearer ${token}`);
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as any).error).toMatchObject({ code: 'rate_limited' });
  });
});
