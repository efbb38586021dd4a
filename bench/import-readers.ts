/**
 * `npx node bench/import-readers.ts [commissions]`: how long a source reader takes to read a large
 * program and how much memory it holds, since a reader gathers the whole source before yielding
 * (default 100,000 commissions, one customer each, 20 per partner, a payout per partner). The
 * source is the Dub fake of the reader tests (test/importers/fakes/dub.ts) serving 100 rows a
 * page on 127.0.0.1, in this process: the CPU time printed includes the fake's.
 */
import { createDubReader } from '../src/importers/dub/index.ts';
import { startFakeDub } from '../test/importers/fakes/dub.ts';
import type { DubFixture } from '../test/importers/fixtures/dub/api.ts';
import { dubFixture } from '../test/importers/fixtures/dub/api.ts';

const COMMISSIONS = Number(process.argv[2] ?? process.env.BENCH_IMPORT_COMMISSIONS ?? 100_000);
const PER_PARTNER = 20;

function program(n: number): DubFixture {
  const [p0] = dubFixture.partners;
  const [c0] = dubFixture.customers;
  const [m0] = dubFixture.commissions;
  const [o0] = dubFixture.payouts;
  const partners = Array.from({ length: Math.ceil(n / PER_PARTNER) }, (_, i) => ({
    ...p0!,
    id: `pn_${i}`,
    email: `partner${i}@example.com`,
    links: [{ ...p0!.links[0]!, key: `partner${i}` }],
  }));
  const partnerOf = (i: number) => ({ ...c0!.partner!, id: `pn_${Math.floor(i / PER_PARTNER)}` });
  const customers = Array.from({ length: n }, (_, i) => ({
    ...c0!,
    id: `cus_${i}`,
    externalId: `user_${i}`,
    stripeCustomerId: `cus_S${i}`,
    partner: partnerOf(i),
  }));
  const commissions = Array.from({ length: n }, (_, i) => ({
    ...m0!,
    id: `cm_${i}`,
    status: ['pending', 'processed', 'paid'][i % 3]!,
    partner: { ...m0!.partner, id: partnerOf(i).id },
    customer: { ...m0!.customer!, id: `cus_${i}` },
  }));
  const payouts = partners.map((p, i) => ({ ...o0!, id: `po_${i}`, partner: { ...o0!.partner, id: p.id } }));
  return { partners, customers, commissions, payouts } as unknown as DubFixture;
}

const fixture = program(COMMISSIONS);
const fake = await startFakeDub(fixture, { key: 'bench', pageSize: 100 });
try {
  const heapBefore = process.memoryUsage().heapUsed;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let records = 0;
  let peakHeap = 0;
  for await (const _ of createDubReader({ apiKey: 'bench', baseUrl: fake.url }).records()) {
    if (++records % 10_000 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const mib = (b: number) => (b / 2 ** 20).toFixed(0);
  console.log(`read ${records} records in ${fake.requests.length} requests (100 rows a page)`);
  console.log(`wall ${seconds.toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (reader and fake)`);
  console.log(
    `${Math.round(records / seconds)} records/s; heap above the fixture while yielding: ${mib(peakHeap - heapBefore)} MiB`,
  );
} finally {
  await fake.close();
}
