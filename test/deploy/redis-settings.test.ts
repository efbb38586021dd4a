/** The Redis settings of a scaled-out deployment (docs/scaling.md): sentinels and a Cluster hash tag. */
import { expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';

test('REDIS_SENTINELS is a list of host:port, IPv6 in brackets; anything else is refused with the item named', () => {
  const c = loadConfig({ REDIS_SENTINELS: ' 10.0.0.5:26379, sentinel-b:26380,[::1]:26381 ' });
  expect(c.REDIS_SENTINELS).toEqual([
    { host: '10.0.0.5', port: 26379 },
    { host: 'sentinel-b', port: 26380 },
    { host: '::1', port: 26381 },
  ]);
  expect(c.REDIS_SENTINEL_NAME).toBe('mymaster');
  expect(loadConfig({ REDIS_SENTINELS: '' }).REDIS_SENTINELS).toBeUndefined();
  for (const bad of ['10.0.0.5', 'host:0', 'host:70000', 'a b:1'])
    expect(() => loadConfig({ REDIS_SENTINELS: bad }), bad).toThrow(/is not host:port/);
});

test('QUEUE_PREFIX takes a Redis Cluster hash tag in braces, and nothing half-braced', () => {
  expect(loadConfig({ QUEUE_PREFIX: '{tracker}' }).QUEUE_PREFIX).toBe('{tracker}');
  expect(loadConfig({}).QUEUE_PREFIX).toBe('tracker');
  for (const bad of ['{tracker', 'tracker}', '{}', 'a{b}', 'a:b'])
    expect(() => loadConfig({ QUEUE_PREFIX: bad }), bad).toThrow(/QUEUE_PREFIX/);
});
