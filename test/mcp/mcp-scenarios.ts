import { expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Harness } from '../helpers/harness.ts';
import { outputChecker, TOOL_NAMES, type McpWorld } from './mcp-fixture.ts';

/**
 * The scenarios both transports run: `connect` opens the SDK's client with a token (over HTTP, or
 * through `tracker mcp` over stdio); `world()` is the data createMcpWorld made.
 */
export function mcpScenarios(h: Harness, world: () => McpWorld, connect: (token: string) => Promise<Client>): void {
  const ids = (rows: Array<{ id: number }>) => rows.map((r) => r.id).sort((x, y) => x - y);

  test('lists every tool, each with an input and an output schema', async () => {
    const client = await connect(world().tokens.readA);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
    }
    expect(tools.find((t) => t.name === 'approve_commission')?.annotations?.readOnlyHint).toBe(false);
    expect(tools.find((t) => t.name === 'top_partners')?.annotations?.readOnlyHint).toBe(true);
    await client.close();
  });

  test('every read tool answers what the data says, in the shape it declares', async () => {
    const w = world();
    const client = await connect(w.tokens.readA);
    const t = await outputChecker(client);
    const overview = await t.call('program_overview');
    expect(overview).toMatchObject({ sales: 4, leads: 4 });
    expect(overview.currencies).toEqual([
      expect.objectContaining({
        currency: 'USD',
        revenue_cents: 40_000,
        refunded_cents: 5_000,
        net_revenue_cents: 35_000,
      }),
    ]);
    const top = await t.call('top_partners', { by: 'revenue', limit: 5 });
    expect(top.partners).toEqual([
      expect.objectContaining({ partner_id: w.a.partnerId, name: 'Jane', sales: 4, net_revenue_cents: 35_000 }),
    ]);
    const partner = await t.call('find_partner', { partner_id: w.a.partnerId });
    expect(partner.partner).toMatchObject({ id: w.a.partnerId, name: 'Jane' });
    expect(partner.terms).toMatchObject({ source: 'program', hold_period_days: 30, commission_rate_bps: 1000 });
    const all = await t.call('search_commissions', { limit: 100 });
    expect(ids(all.commissions)).toEqual([w.held, w.held2, w.plain, w.refunded].sort((x, y) => x - y));
    expect(all.next_before).toBeNull();
    const page = await t.call('search_commissions', { limit: 2 });
    expect(page.commissions).toHaveLength(2);
    const rest = await t.call('search_commissions', { limit: 2, before: page.next_before });
    expect(ids([...page.commissions, ...rest.commissions])).toEqual(ids(all.commissions));
    const held = await t.call('list_held_commissions');
    expect(ids(held.commissions)).toEqual([w.held, w.held2].sort((x, y) => x - y));
    expect((await t.call('search_sales')).sales).toHaveLength(4);
    const why = await t.call('explain_commission', { commission_id: w.held });
    expect(why.state).toBe('held');
    expect(why.reasons.join('\n')).toMatch(/self_referral/);
    const refunded = await t.call('explain_commission', { commission_id: w.refunded });
    expect(refunded.state).toBe('partly_refunded');
    expect(refunded.refunds).toHaveLength(1);
    expect(refunded.reasons.join('\n')).toMatch(/damaged item/);
    expect((await t.call('webhook_event_status', { status: 'failed' })).events).toEqual([]);
    expect(await t.fail('webhook_event_status', { event_id: 999_999 })).toMatch(/^not_found/);
    const preview = await t.call('preview_rule_change', { reward_rules: { sale: { type: 'percent', bps: 2000 } } });
    expect(preview.sales).toBe(4);
    expect(preview.totals).toEqual([expect.objectContaining({ currency: 'USD', proposed_cents: 8_000 })]);
    await client.close();
  });

  test('a read-only token is refused every write tool, and nothing changes', async () => {
    const w = world();
    const client = await connect(w.tokens.readA);
    const t = await outputChecker(client);
    for (const name of ['approve_commission', 'release_held_commission', 'reject_held_commission'])
      expect(await t.fail(name, { commission_id: w.held })).toMatch(/^forbidden: .*write scope/);
    expect(await t.fail('preview_payout', { partner_id: w.a.partnerId, currency: 'USD' })).toMatch(/^forbidden/);
    expect((await t.call('explain_commission', { commission_id: w.held })).state).toBe('held');
    await client.close();
  });

  test('a write token approves, releases and rejects, and previews a payout without paying it', async () => {
    const w = world();
    const client = await connect(w.tokens.writeA);
    const t = await outputChecker(client);
    const approved = await t.call('approve_commission', { commission_id: w.plain });
    expect(approved.commission).toMatchObject({ id: w.plain, status: 'approved' });
    expect(await t.fail('approve_commission', { commission_id: w.held })).toMatch(/^invalid_request: .*held/);
    const released = await t.call('release_held_commission', { commission_id: w.held });
    expect(released.commission).toMatchObject({ id: w.held, status: 'approved', held_for_review: false });
    const rejected = await t.call('reject_held_commission', { commission_id: w.held2 });
    expect(rejected.commission).toMatchObject({ id: w.held2, status: 'reversed' });
    const payout = await t.call('preview_payout', { partner_id: w.a.partnerId, currency: 'USD' });
    expect(payout).toMatchObject({ commissions_cents: 2_000, netted_cents: 0, amount_cents: 2_000 });
    expect([...payout.commission_ids].sort()).toEqual([w.plain, w.held].sort());
    // A preview: nothing was paid.
    const statement = await h.admin('GET', `/programs/${w.a.programId}/partners/${w.a.partnerId}/statement`);
    expect(statement.payouts).toEqual([]);
    expect(statement.balances).toEqual([{ currency: 'USD', balance_cents: 2_000 }]);
    // Each decision is in the audit log, by the token, from MCP; the preview is not (it changes nothing).
    const audit = await h.admin('GET', `/programs/${w.a.programId}/audit?via=mcp`);
    const mine = audit.entries.filter((e: any) => e.token_id !== null && e.action.startsWith('mcp '));
    expect(mine.map((e: any) => e.action).sort()).toEqual([
      'mcp approve_commission',
      'mcp reject_held_commission',
      'mcp release_held_commission',
    ]);
    expect(mine.every((e: any) => e.actor_kind === 'mcp_token' && e.via === 'mcp')).toBe(true);
    expect(mine.find((e: any) => e.action === 'mcp reject_held_commission').after.commission).toMatchObject({
      id: w.held2,
      status: 'reversed',
    });
    await client.close();
  });

  test("a token of one program cannot read another program's records", async () => {
    const w = world();
    const client = await connect(w.tokens.readB);
    const t = await outputChecker(client);
    expect(await t.fail('explain_commission', { commission_id: w.plain })).toMatch(/^not_found/);
    expect(await t.fail('find_partner', { partner_id: w.a.partnerId })).toMatch(/^not_found/);
    const theirs = await t.call('search_commissions', { limit: 100 });
    expect(theirs.commissions).toHaveLength(1);
    expect(theirs.commissions[0].program).toBe(w.b.programId);
    expect((await t.call('program_overview')).sales).toBe(1);
    expect((await t.call('top_partners')).partners.map((p: { partner_id: number }) => p.partner_id)).toEqual([
      w.b.partnerId,
    ]);
    await client.close();
  });
}
