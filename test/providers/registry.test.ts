import { expect, test } from 'vitest';
import { WEBHOOK_PROVIDERS } from '../../src/core/shared/vocabulary.ts';
import { createProviderAdapters } from '../../src/providers/registry.ts';

test('there is exactly one adapter per webhook provider, each named after its key', () => {
  const adapters = createProviderAdapters();
  expect(Object.keys(adapters).sort()).toEqual([...WEBHOOK_PROVIDERS].sort());
  for (const provider of WEBHOOK_PROVIDERS) expect(adapters[provider].name).toBe(provider);
});
