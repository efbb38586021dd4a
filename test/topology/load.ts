/**
 * The load through HAProxy: clicks, API sales and refunds, signed Stripe checkouts and refunds,
 * dashboard reads and a CSV export. Writers behave as the senders they stand for: a merchant
 * retries a sale or refund after a network failure or a 5xx with the same id, Stripe redelivers
 * an event the same way. Every attempt is a sample (for the error counts), every item remembers
 * whether it was finally acknowledged (for the exactly-once checks).
 */
import { signedStripeCheckout, signedStripeRefund, type LoadFixture } from '../helpers/load-fixture.ts';
import { bearer, send, sleep, type Reply } from '../faults/fault-env.ts';

export type Kind = 'click' | 'sale' | 'refund' | 'webhook' | 'read' | 'export';
/** `balancer`: the answer came from HAProxy itself (no server, or none answered), not the service. */
export type Sample = { kind: Kind; start: number; end: number; status: number; balancer: boolean };

export type Ledger = {
  samples: Sample[];
  /** Checkout event id → its payment intent; acknowledged or not. */
  checkouts: Map<string, { pi: string; acked: boolean }>;
  stripeRefunds: Map<string, { refundId: string; acked: boolean }>;
  apiSales: Map<string, { acked: boolean }>;
  apiRefunds: Map<string, { tx: string; acked: boolean }>;
};

export const newLedger = (): Ledger => ({
  samples: [],
  checkouts: new Map(),
  stripeRefunds: new Map(),
  apiSales: new Map(),
  apiRefunds: new Map(),
});

const ATTEMPTS = 40;
const RETRY_MS = 500;

export class Load {
  private n = 0;
  private url: string;
  private f: LoadFixture;
  private adminToken: string;
  readonly ledger: Ledger;
  constructor(url: string, f: LoadFixture, adminToken: string, ledger: Ledger) {
    this.url = url;
    this.f = f;
    this.adminToken = adminToken;
    this.ledger = ledger;
  }

  /** One call, recorded. */
  private async call(kind: Kind, path: string, init: Parameters<typeof send>[2] = {}): Promise<Reply> {
    const start = Date.now();
    const r = await send(this.url, path, { timeoutMs: 20_000, ...init });
    // The service answers JSON; HAProxy's own error pages are HTML.
    const balancer = r.status >= 500 && typeof r.body === 'string' && r.body.includes('<html>');
    this.ledger.samples.push({ kind, start, end: Date.now(), status: r.status, balancer });
    return r;
  }

  /** Retried like a merchant or Stripe would: same body, until a final answer (not 0, not 5xx). */
  private async retried(kind: Kind, path: string, init: Parameters<typeof send>[2]): Promise<Reply> {
    let r: Reply = { status: 0, body: null, ms: 0 };
    for (let a = 0; a < ATTEMPTS; a++) {
      r = await this.call(kind, path, init);
      if (r.status !== 0 && r.status < 500) return r;
      await sleep(RETRY_MS);
    }
    return r;
  }

  async click(): Promise<void> {
    const i = this.n++;
    const code = this.f.partnerCodes[i % this.f.partnerCodes.length];
    await this.call('click', '/api/v1/track/click', { body: { affiliate_url: `https://shop.example/?aff=${code}` } });
  }

  /** An API sale; every third one acknowledged is then partly refunded through the API. */
  async sale(tag = 's'): Promise<boolean> {
    const i = this.n++;
    const tx = `tp-${tag}-${i}`;
    const r = await this.retried('sale', '/api/v1/track/sale', {
      body: {
        transaction_id: tx,
        amount_cents: 7_000 + i,
        customer_key: this.f.customerKey((i * 7) % this.f.customers),
      },
      headers: bearer(this.f.liveKey),
    });
    const acked = r.status === 200 || r.status === 409;
    this.ledger.apiSales.set(tx, { acked });
    if (acked && tag === 's' && i % 3 === 0) {
      const refundId = `tp-rf-${i}`;
      const rr = await this.retried('refund', '/api/v1/track/refund', {
        body: { transaction_id: tx, refund_amount_cents: 1_000, refund_id: refundId },
        headers: bearer(this.f.liveKey),
      });
      this.ledger.apiRefunds.set(refundId, { tx, acked: rr.status === 200 });
    }
    return r.status === 200;
  }

  /** A signed Stripe checkout; every third one acknowledged is then partly refunded by Stripe. */
  async checkout(): Promise<void> {
    const i = this.n++;
    const path = `/api/v1/webhooks/stripe/${this.f.programId}`;
    const evt = `evt_tp${i}`;
    const d = signedStripeCheckout(this.f, {
      eventId: evt,
      paymentIntent: `pi_tp${i}`,
      amountCents: 5_000 + i,
      customerKey: this.f.customerKey(i % this.f.customers),
    });
    const r = await this.retried('webhook', path, { body: d.body, headers: d.headers });
    this.ledger.checkouts.set(evt, { pi: `pi_tp${i}`, acked: r.status === 200 });
    if (r.status === 200 && i % 3 === 0) {
      const rf = signedStripeRefund(this.f, {
        eventId: `evt_tpr${i}`,
        refundId: `re_tp${i}`,
        paymentIntent: `pi_tp${i}`,
        amountCents: 1_000,
      });
      const rr = await this.retried('webhook', path, { body: rf.body, headers: rf.headers });
      this.ledger.stripeRefunds.set(`evt_tpr${i}`, { refundId: `re_tp${i}`, acked: rr.status === 200 });
    }
  }

  async read(): Promise<void> {
    const p = `/api/v1/admin/programs/${this.f.programId}`;
    const which = this.n++ % 3;
    const path = which === 0 ? `${p}/stats` : which === 1 ? `${p}/sales` : `${p}/commissions`;
    await this.call('read', path, { headers: bearer(this.adminToken) });
  }

  async export(): Promise<void> {
    await this.call('export', `/api/v1/admin/programs/${this.f.programId}/exports/sales`, {
      headers: bearer(this.adminToken),
      timeoutMs: 60_000,
    });
  }

  /**
   * Open-loop mixed load at `rate` operations a second until `stop()` turns true (in flight at most
   * 80): 30% clicks, 25% API sales, 25% Stripe checkouts, 20% dashboard reads, an export every 5 s.
   */
  async steady(rate: number, stop: () => boolean): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    const ops = [
      ...Array<() => Promise<unknown>>(6).fill(() => this.click()),
      ...Array<() => Promise<unknown>>(5).fill(() => this.sale()),
      ...Array<() => Promise<unknown>>(5).fill(() => this.checkout()),
      ...Array<() => Promise<unknown>>(4).fill(() => this.read()),
    ];
    let k = 0;
    let lastExport = 0;
    while (!stop()) {
      const op = Date.now() - lastExport >= 5_000 ? ((lastExport = Date.now()), () => this.export()) : ops[k++ % 20]!;
      if (inFlight.size < 80) {
        const p: Promise<void> = op().then(
          () => void inFlight.delete(p),
          () => void inFlight.delete(p),
        );
        inFlight.add(p);
      }
      await sleep(1_000 / rate);
    }
    await Promise.all(inFlight);
  }

  /** Closed loop: `concurrency` API sales at a time for `ms`; acknowledged sales a second. */
  async saleThroughput(ms: number, concurrency: number, tag: string): Promise<number> {
    const t0 = Date.now();
    let ok = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() - t0 < ms) if (await this.sale(tag)) ok++;
      }),
    );
    return ok / ((Date.now() - t0) / 1000);
  }
}
