import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bearer, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';

/** Every tool the server lists, read and write. */
export const TOOL_NAMES = [
  'approve_commission',
  'explain_commission',
  'find_partner',
  'list_held_commissions',
  'preview_payout',
  'preview_rule_change',
  'program_overview',
  'reject_held_commission',
  'release_held_commission',
  'search_commissions',
  'search_sales',
  'top_partners',
  'webhook_event_status',
];

export type McpWorld = {
  a: Fixture;
  b: Fixture;
  /** A's commissions: two held by the self-referral rule, one ordinary, one ordinary half refunded. */
  held: number;
  held2: number;
  plain: number;
  refunded: number;
  tokens: { readA: string; writeA: string; readB: string };
};

/**
 * Program A with fraud rules and a partner with an email: a self-referred sale is held; two other
 * customers buy, one refunds half. Program B has a partner and a sale of its own. Tokens issued
 * through the admin API.
 */
export async function createMcpWorld(h: Harness): Promise<McpWorld> {
  const a0 = await createProgramFixture(h, { fraud_rules: { self_referral: true } });
  const { partner } = await h.admin('POST', `/programs/${a0.programId}/partners`, {
    code: `${a0.partnerCode}-j`,
    name: 'Jane',
    email: 'jane.partner@example.com',
  });
  const a = { ...a0, partnerId: partner.id, partnerCode: partner.code };
  const sale = async (f: Fixture, key: string, email: string, tx: string) => {
    const click = await h.request('/api/v1/track/click', {
      body: { affiliate_url: `https://shop.example/?aff=${f.partnerCode}` },
    });
    await h.request('/api/v1/track/lead', {
      body: { customer_key: key, click_id: click.body.click_id, email },
      headers: bearer(f.liveKey),
    });
    const r = await h.request('/api/v1/track/sale', {
      body: { transaction_id: tx, amount_cents: 10_000, customer_key: key },
      headers: bearer(f.liveKey),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.commission_id as number;
  };
  const held = await sale(a, 'c-held', 'jane.partner@example.com', 'mcp-1');
  const held2 = await sale(a, 'c-held2', 'jane.partner@example.com', 'mcp-4');
  const plain = await sale(a, 'c-plain', 'buyer1@example.org', 'mcp-2');
  const refunded = await sale(a, 'c-refund', 'buyer2@example.org', 'mcp-3');
  const refund = await h.request('/api/v1/track/refund', {
    body: { transaction_id: 'mcp-3', refund_amount_cents: 5_000, refund_reason: 'damaged item' },
    headers: bearer(a.liveKey),
  });
  expect(refund.status).toBe(200);
  const b = await createProgramFixture(h);
  await sale(b, 'c-b', 'buyer3@example.org', 'mcp-b');
  const token = async (f: Fixture, scope: 'read' | 'write') =>
    (await h.admin('POST', `/programs/${f.programId}/mcp-tokens`, { scope, name: `${scope} test` })).token as string;
  return {
    a,
    b,
    held,
    held2,
    plain,
    refunded,
    tokens: { readA: await token(a, 'read'), writeA: await token(a, 'write'), readB: await token(b, 'read') },
  };
}

/** Checks a structured result against the output schema the server listed (JSON Schema, by Ajv). */
export async function outputChecker(client: Client) {
  const { tools } = await client.listTools();
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const validators = new Map(
    tools.map((t) => {
      const { $schema: _s, ...schema } = (t.outputSchema ?? {}) as Record<string, unknown>;
      return [t.name, ajv.compile(schema)];
    }),
  );
  return {
    tools,
    /** Calls a tool, expects success, validates the structured output and returns it. */
    async call(name: string, args: Record<string, unknown> = {}): Promise<any> {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(r.isError, `${name}: ${JSON.stringify(r.content)}`).toBeFalsy();
      const validate = validators.get(name)!;
      expect(validate(r.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent);
      return r.structuredContent;
    },
    /** Calls a tool, expects a tool error; returns its text. */
    async fail(name: string, args: Record<string, unknown> = {}): Promise<string> {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(r.isError, `${name} should fail`).toBe(true);
      return (r.content[0] as { text: string }).text;
    },
  };
}
