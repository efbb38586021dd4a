import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Harness } from '../helpers/harness.ts';
import { adminCli, startCliTarget } from './admin-cli-target.ts';

let h: Harness;
let url: string;
beforeAll(async () => {
  ({ h, url } = await startCliTarget());
}, 240_000);
afterAll(async () => {
  await h.close();
});
const admin = adminCli(() => url);

test('a change made with the CLI is audited as from `cli`, by the operator, with the issued key redacted', async () => {
  const { program } = await admin('programs:create', '--name', 'Audited shop');
  const key = await admin('keys:issue', String(program.id), '--mode', 'live');
  const { entries } = await h.admin('GET', `/programs/${program.id}/audit?action=keys`);
  expect(entries).toHaveLength(1);
  expect(entries[0]).toMatchObject({ via: 'cli', actor_kind: 'operator', action: 'POST /programs/:id/keys' });
  expect(entries[0].after.key).toBe('[redacted]');
  expect(JSON.stringify(entries)).not.toContain(key.key);
});
