import type { CoreDeps } from './core/deps.ts';
import { Program } from './core/entities/program.ts';
import { createPartner, createProgram } from './core/programs/programs.ts';
import { issueApiKey } from './core/programs/api-keys.ts';

/** On an empty embedded database: a demo program, partner and keys (returned once, for printing). */
export async function seedDemoProgram(deps: CoreDeps) {
  if (await deps.em.count(Program, {})) return null;
  const program = await createProgram(deps, { name: 'Demo program' });
  const { partner } = await createPartner(deps, program.id, { code: `demo${program.id}`, name: 'Demo partner' });
  const live = await issueApiKey(deps, program.id, 'live');
  const test = await issueApiKey(deps, program.id, 'test');
  return { programId: program.id, partnerCode: partner.code, liveKey: live.key, testKey: test.key };
}
