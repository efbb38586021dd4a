import { expect, test } from 'vitest';
import { expiringMap, SETTINGS_CACHE_MS } from '../../src/core/settings-cache.ts';

test('a remembered setting expires by the injected clock, not by wall time', () => {
  let now = new Date('2026-01-01T00:00:00Z');
  const map = expiringMap<number, string>(() => now);
  map.set(1, 'program one');
  now = new Date(now.getTime() + SETTINGS_CACHE_MS - 1);
  expect(map.get(1)).toBe('program one');
  now = new Date(now.getTime() + 1);
  expect(map.get(1)).toBeUndefined();
  map.set(2, 'program two');
  expect(map.get(2)).toBe('program two');
  map.delete(2);
  expect(map.get(2)).toBeUndefined();
});

test('bounded: past its size it starts over', () => {
  const map = expiringMap<number, number>(() => new Date(0), 3);
  for (const k of [1, 2, 3]) map.set(k, k);
  map.set(4, 4);
  expect([1, 2, 3, 4].map((k) => map.get(k))).toEqual([undefined, undefined, undefined, 4]);
});
