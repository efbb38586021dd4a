import { beforeAll, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { useHarness } from '../helpers/harness.ts';
import { REPO_ROOT } from '../helpers/service-process.ts';
import { createMcpWorld, type McpWorld } from './mcp-fixture.ts';
import { mcpScenarios } from './mcp-scenarios.ts';

/**
 * The MCP server over stdio: the SDK's client spawns `npx tracker mcp` (the installable client's
 * CLI), which relays to `/mcp` of a real server, both modes.
 */
const h = useHarness();
let base: string;
let world: McpWorld;

beforeAll(async () => {
  base = await h.listen();
  world = await createMcpWorld(h);
});

function transport(env: Record<string, string>): StdioClientTransport {
  return new StdioClientTransport({
    command: 'npx',
    args: ['--no-install', 'tracker', 'mcp'],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TRACKER_API_URL: base, ...env },
    stderr: 'pipe',
  });
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await client.connect(transport({ TRACKER_MCP_TOKEN: token }));
  return client;
}

describe('MCP over stdio (tracker mcp)', () => {
  mcpScenarios(h, () => world, connect);

  test('a revoked token: the relay answers the request with an error, and never prints the token', async () => {
    const issued = await h.admin('POST', `/programs/${world.a.programId}/mcp-tokens`, { scope: 'write' });
    await h.admin('POST', `/programs/${world.a.programId}/mcp-tokens/${issued.mcp_token.id}/revoke`);
    const t = transport({ TRACKER_MCP_TOKEN: issued.token });
    let stderr = '';
    t.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    await expect(client.connect(t)).rejects.toThrow(/401|did not answer/);
    await client.close();
    expect(stderr).not.toContain(issued.token);
  });

  test('a tool call through the relay is the service’s own answer', async () => {
    const client = await connect(world.tokens.readA);
    const r = (await client.callTool({
      name: 'explain_commission',
      arguments: { commission_id: world.refunded },
    })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({ state: 'partly_refunded', commission: { id: world.refunded } });
    await client.close();
  });
});
