/**
 * The program the sale API tests run against (20% commission, a 30-day window, a 1.5% platform
 * fee, a product rate for `pro-plan`, customer `alice` referred) and their steps.
 */
import { bearer, clickAndLead, createProgramFixture, type Fixture, type Harness } from '../helpers/harness.ts';

export async function createSaleProgram(h: Harness): Promise<Fixture> {
  const f = await createProgramFixture(h, {
    commission_rate_bps: 2000,
    attribution_window_days: 30,
    platform_fee_bps: 150,
    product_rates_bps: { 'pro-plan': 3000 },
  });
  await clickAndLead(h, f, 'alice');
  return f;
}

/** Steps against program `program()` (read at call time): a fresh transaction id, a sale call, row counts. */
export function saleSteps(h: Harness, program: () => Fixture) {
  let seq = 0;
  const tx = () => `tx-${++seq}`;
  const sale = (body: Record<string, unknown>, key = program().liveKey) =>
    h.request('/api/v1/track/sale', { body, headers: bearer(key) });
  const counts = async (programId = program().programId) => {
    const [sales, commissions, fees, tests] = await Promise.all(
      ['sales', 'commissions', 'platform-fees', 'test-events'].map((k) =>
        h.admin('GET', `/programs/${programId}/${k}?limit=500`),
      ),
    );
    return {
      sales: sales.sales.length,
      commissions: commissions.commissions.length,
      fees: fees['platform-fees'].length,
      tests: tests['test-events'].length,
    };
  };
  return { tx, sale, counts };
}
