/**
 * One real service per webhook test file (see ../helpers/harness.ts), listening on a random port:
 * deliveries go over real HTTP so the route reads the raw bytes exactly as a provider sends them.
 * Everything is read back through the admin API, as an operator would.
 */
import { beforeAll } from 'vitest';
import { clickAndLead, useHarness, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';
import type { ProviderKit } from './kits/kit.ts';
import type { WebhookProvider } from '../../src/core/shared/vocabulary.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { assertDocumentedResponse } from '../helpers/contract.ts';

type Row = Record<string, any>;
export type Delivery = { status: number; body: any };

/** What the harness needs of a provider: its connection secrets and how to sign a body. */
export type HarnessKit = Pick<ProviderKit, 'secret' | 'testSecret' | 'sign'> & { provider: WebhookProvider };

export type WebhookHarness<K extends HarnessKit = ProviderKit> = {
  readonly h: Harness;
  readonly kit: K;
  /** A program (10% commission unless `config` says otherwise) connected to the kit's provider. */
  newProgram(config?: Record<string, unknown>): Promise<Fixture>;
  /** A click through the API and a lead binding `customerKey` to it. */
  newCustomer(f: Fixture, customerKey?: string): Promise<{ clickId: string; customerKey: string }>;
  /** Delivers `event` signed with the kit's secret at the harness clock; `headers` replace the signature. */
  send(programId: number, event: object | string, headers?: Record<string, string>): Promise<Delivery>;
  /** POSTs raw bytes to any webhook path (no signing). */
  post(path: string, body: string, headers?: Record<string, string>): Promise<Delivery>;
  inbox(programId: number, status?: string): Promise<Row[]>;
  /** Waits until inbox row `inboxId` has `status` (and `extra` holds); returns the row. */
  waitForInbox(
    programId: number,
    inboxId: number,
    status: string,
    extra?: (row: Row) => boolean,
    timeoutMs?: number,
  ): Promise<Row>;
  list(
    programId: number,
    kind:
      | 'sales'
      | 'commissions'
      | 'refunds'
      | 'customers'
      | 'test-events'
      | 'notifications'
      | 'webhook-events'
      | 'parked-refunds',
  ): Promise<Row[]>;
  sale(programId: number, transactionId: string): Promise<Row | undefined>;
  commissionOf(programId: number, saleId: number): Promise<Row | undefined>;
  balanceCents(f: Fixture, currency?: string): Promise<number>;
};

let customers = 0;

export function useWebhookHarness<K extends HarnessKit = ProviderKit>(
  kit: K,
  env: Record<string, string> = {},
): WebhookHarness<K> {
  const h = useHarness({ ...WEBHOOK_TEST_ENV, ...env });
  let base = '';
  beforeAll(async () => {
    base = await h.listen();
  });
  return webhookHarnessOn(h, () => base, kit);
}

/** The settings every webhook test file runs with: quick retries and sweeps. */
export const WEBHOOK_TEST_ENV = { WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_ATTEMPTS: '6', SWEEP_INTERVAL_MS: '200' };

/** The webhook steps of `kit` over a running harness `h` listening at `baseUrl()` (several kits may share one). */
export function webhookHarnessOn<K extends HarnessKit = ProviderKit>(
  h: Harness,
  baseUrl: () => string,
  kit: K,
): WebhookHarness<K> {
  const post: WebhookHarness<K>['post'] = async (path, body, headers = {}) => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    assertDocumentedResponse('POST', path, { status: res.status, headers: res.headers, body: parsed });
    return { status: res.status, body: parsed };
  };
  const list: WebhookHarness<K>['list'] = async (programId, kind) =>
    (await h.admin('GET', `/programs/${programId}/${kind}?limit=500`))[kind];
  const inbox: WebhookHarness<K>['inbox'] = async (programId, status) =>
    (await h.admin('GET', `/programs/${programId}/webhook-events?limit=500${status ? `&status=${status}` : ''}`))[
      'webhook-events'
    ];

  return {
    h,
    kit,
    async newProgram(config = {}) {
      const f = await createProgramFixture(h, { commission_rate_bps: 1000, ...config });
      const r = await h.admin('PUT', `/programs/${f.programId}/providers/${kit.provider}`, {
        signing_secret: kit.secret,
      });
      if (!r.connected) throw new Error(`connect failed: ${JSON.stringify(r)}`);
      if (kit.testSecret)
        await h.admin('POST', `/programs/${f.programId}/providers/${kit.provider}/secrets`, {
          secret: kit.testSecret,
          label: 'test',
        });
      return f;
    },
    async newCustomer(f, customerKey = `user-${++customers}`) {
      return { clickId: await clickAndLead(h, f, customerKey), customerKey };
    },
    send(programId, event, headers) {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      return post(`/api/v1/webhooks/${kit.provider}/${programId}`, body, headers ?? kit.sign(body, h.clock.now));
    },
    post,
    inbox,
    async waitForInbox(programId, inboxId, status, extra = () => true, timeoutMs = 15_000) {
      return waitFor(async () => {
        const row = (await inbox(programId)).find((r) => r.id === inboxId);
        if (!row) throw new Error(`inbox row ${inboxId} not found`);
        if (row.status !== status || !extra(row))
          throw new Error(
            `inbox row ${inboxId} is ${row.status} (attempts ${row.attempts}, error ${row.error}), want ${status}`,
          );
        return row;
      }, timeoutMs);
    },
    list,
    async sale(programId, transactionId) {
      return (await list(programId, 'sales')).find((s) => s.transaction_id === transactionId);
    },
    async commissionOf(programId, saleId) {
      return (await list(programId, 'commissions')).find((c) => c.sale === saleId);
    },
    async balanceCents(f, currency = 'USD') {
      const account = await h.admin('GET', `/programs/${f.programId}/partners/${f.partnerId}/account`);
      return account.balances.find((b: Row) => b.currency === currency)?.balance_cents ?? 0;
    },
  };
}
