/**
 * The soak's steady load and what it expects: API sales (partly and fully refunded through the
 * API) and signed Stripe checkouts (partly and fully refunded by Stripe). Every sender behaves as
 * the one it stands for: a merchant retries a sale or refund with the same id after a network error
 * or a 5xx, Stripe redelivers an event the same way. Each item remembers whether it was finally
 * acknowledged; the checks compare that with the database.
 */
import { signedStripeCheckout, signedStripeRefund, type LoadFixture } from '../helpers/load-fixture.ts';
import { bearer, send, sleep, type Reply } from '../faults/fault-env.ts';

/** Keep retrying for this long (the longest fault, a worker restart, is well inside it). */
const RETRY_FOR_MS = 120_000;
const RETRY_MS = 300;

export type Item = { acked: boolean; attempts: number };
export type SaleItem = Item & { amount: number };
export type RefundItem = Item & { tx: string; amount: number };
export type EventItem = Item & { kind: 'checkout' | 'refund'; tx: string; refundId?: string; amount: number };

export type Expected = {
  /** API sales by transaction id. */
  sales: Map<string, SaleItem>;
  /** API refunds by refund id. */
  refunds: Map<string, RefundItem>;
  /** Stripe events by event id (checkouts: tx is the payment intent; refunds: refundId). */
  events: Map<string, EventItem>;
  requests: number;
  /** Answers by status (0: no answer: refused, reset, aborted, timed out). */
  statuses: Record<string, number>;
};

export const newExpected = (): Expected => ({
  sales: new Map(),
  refunds: new Map(),
  events: new Map(),
  requests: 0,
  statuses: {},
});

type Init = Parameters<typeof send>[2];

export class Traffic {
  private n = 0;
  readonly x: Expected;
  private readonly url: string;
  private readonly f: LoadFixture;
  constructor(url: string, f: LoadFixture, x: Expected) {
    this.url = url;
    this.f = f;
    this.x = x;
  }

  /** One call, counted. `abortAfterMs`: the client gives up that soon (a request cut mid-flight). */
  async call(path: string, init: Init & { abortAfterMs?: number } = {}): Promise<Reply> {
    this.x.requests++;
    const r = await send(this.url, path, { timeoutMs: init.abortAfterMs ?? 30_000, ...init });
    const k = String(r.status);
    this.x.statuses[k] = (this.x.statuses[k] ?? 0) + 1;
    return r;
  }

  /** Retried as merchants and Stripe do: the same body until a final answer (not 0, not 5xx). */
  private async retried(item: Item, path: string, init: () => Init, okStatus: number[]): Promise<Reply> {
    const until = Date.now() + RETRY_FOR_MS;
    let r: Reply;
    do {
      item.attempts++;
      r = await this.call(path, init());
      if (r.status !== 0 && r.status < 500) break;
      await sleep(RETRY_MS);
    } while (Date.now() < until);
    item.acked = okStatus.includes(r.status);
    return r;
  }

  private saleBody(tx: string, amount: number, i: number) {
    return { transaction_id: tx, amount_cents: amount, customer_key: this.f.customerKey((i * 7) % this.f.customers) };
  }

  /**
   * An API sale; a third of those acknowledged are refunded a quarter, and half of those the rest.
   * `abortFirstAfterMs`: the first attempt is cut by the client that soon (a fault), then retried.
   */
  async apiSale(abortFirstAfterMs?: number): Promise<boolean> {
    const i = this.n++;
    const tx = `soak-s-${i}`;
    const amount = 4_000 + (i % 5_000);
    const item: SaleItem = { acked: false, attempts: 0, amount };
    this.x.sales.set(tx, item);
    const path = '/api/v1/track/sale';
    const init = () => ({ body: this.saleBody(tx, amount, i), headers: bearer(this.f.liveKey) });
    let aborted = false;
    if (abortFirstAfterMs !== undefined) {
      item.attempts++;
      const r = await this.call(path, { ...init(), abortAfterMs: abortFirstAfterMs });
      aborted = r.status === 0;
    }
    await this.retried(item, path, init, [200, 409]);
    if (item.acked && i % 3 === 0) {
      const quarter = Math.floor(amount / 4);
      await this.apiRefund(tx, `soak-r-${i}`, quarter);
      if (i % 6 === 0) await this.apiRefund(tx, `soak-rf-${i}`, amount - quarter);
    }
    return aborted;
  }

  private async apiRefund(tx: string, refundId: string, amount: number): Promise<void> {
    const item: RefundItem = { acked: false, attempts: 0, tx, amount };
    this.x.refunds.set(refundId, item);
    await this.retried(
      item,
      '/api/v1/track/refund',
      () => ({
        body: { transaction_id: tx, refund_amount_cents: amount, refund_id: refundId },
        headers: bearer(this.f.liveKey),
      }),
      [200],
    );
  }

  /** Delivers a Stripe event (signed anew at each attempt, as Stripe does), until acknowledged. */
  async deliver(eventId: string): Promise<void> {
    const e = this.x.events.get(eventId)!;
    const sign = () =>
      e.kind === 'checkout'
        ? signedStripeCheckout(this.f, {
            eventId,
            paymentIntent: e.tx,
            amountCents: e.amount,
            customerKey: this.f.customerKey(Number(e.tx.slice(8)) % this.f.customers),
          })
        : signedStripeRefund(this.f, { eventId, refundId: e.refundId!, paymentIntent: e.tx, amountCents: e.amount });
    const was = e.acked;
    await this.retried(
      e,
      `/api/v1/webhooks/stripe/${this.f.programId}`,
      () => {
        const d = sign();
        return { body: d.body, headers: d.headers };
      },
      [200],
    );
    e.acked ||= was;
  }

  /** Registers a checkout and its refunds (a third refunded a quarter, half of those the rest). */
  private plan(i: number): string[] {
    const pi = `pi_soak_${i}`;
    const amount = 3_000 + (i % 5_000);
    const ids = [`evt_soak_c${i}`];
    this.x.events.set(ids[0]!, { kind: 'checkout', tx: pi, amount, acked: false, attempts: 0 });
    if (i % 3 === 0) {
      const quarter = Math.floor(amount / 4);
      ids.push(`evt_soak_r${i}`);
      this.x.events.set(`evt_soak_r${i}`, {
        kind: 'refund',
        tx: pi,
        refundId: `re_soak_${i}`,
        amount: quarter,
        acked: false,
        attempts: 0,
      });
      if (i % 6 === 0) {
        ids.push(`evt_soak_rf${i}`);
        this.x.events.set(`evt_soak_rf${i}`, {
          kind: 'refund',
          tx: pi,
          refundId: `re_soak_f${i}`,
          amount: amount - quarter,
          acked: false,
          attempts: 0,
        });
      }
    }
    return ids;
  }

  /** A Stripe checkout then its refunds, in order. */
  async checkout(): Promise<void> {
    const ids = this.plan(this.n++);
    await this.deliver(ids[0]!);
    if (!this.x.events.get(ids[0]!)!.acked) return;
    for (const id of ids.slice(1)) await this.deliver(id);
  }

  /** A fault: a checkout whose refund is delivered first (Stripe does not order its deliveries). */
  async reordered(): Promise<void> {
    let i = this.n++;
    while (i % 3 !== 0) i = this.n++;
    const ids = this.plan(i);
    for (const id of [...ids.slice(1).reverse(), ids[0]!]) await this.deliver(id);
  }

  /** A fault: an event acknowledged already is delivered again (a duplicate). */
  async duplicate(): Promise<boolean> {
    const acked = [...this.x.events.entries()].filter(([, e]) => e.acked);
    if (!acked.length) return false;
    const [id] = acked[Math.floor(Math.random() * acked.length)]!;
    await this.deliver(id);
    return true;
  }
}
