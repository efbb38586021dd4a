import { ensureDashboardBuilt } from '../dashboard/build.ts';

/** Once per test run: build the dashboard bundle when its sources changed, so tests serve the code under review. */
export default async function setup(): Promise<void> {
  await ensureDashboardBuilt();
}
