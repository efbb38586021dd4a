import { describe, expect, test } from 'vitest';
import {
  createNoopTracker,
  LOCAL_SCRIPT_URL,
  loadTracker,
  PRODUCTION_SCRIPT_URL,
  resolveScriptUrl,
  type TrackerEnv,
} from '../../tracker/src/loader.ts';

describe('loadTracker outside a browser', () => {
  test('resolves to a harmless no-op instance on the server side', async () => {
    expect(typeof window).toBe('undefined');
    const tracker = await loadTracker({ programId: 7, env: 'local', debug: true });
    expect(tracker.getClickId()).toBeNull();
    expect(tracker.getVisitorId()).toBeNull();
    expect(tracker.getData()).toEqual({
      clickId: null,
      programId: 7,
      hasAttribution: false,
      affiliateUrl: null,
      lastError: null,
    });
    expect(tracker.consent(true)).toBeUndefined();
    await expect(tracker.signup('user_42', 'a@example.com')).resolves.toBeNull();
    await expect(tracker.trackTest({ a: 1 })).resolves.toBeNull();
  });

  test('the no-op getData hands out a copy', () => {
    const tracker = createNoopTracker(3);
    (tracker.getData() as { clickId: unknown }).clickId = 'mutated';
    expect(tracker.getData().clickId).toBeNull();
  });

  test.each([0, -1, 1.5, Number.NaN, '7' as unknown as number])(
    'rejects programId %s with a TypeError',
    async (programId) => {
      await expect(loadTracker({ programId })).rejects.toThrow(TypeError);
    },
  );
});

describe('resolveScriptUrl', () => {
  test.each([
    [undefined, undefined, PRODUCTION_SCRIPT_URL, 'production is the default'],
    ['production', undefined, PRODUCTION_SCRIPT_URL, 'explicit production'],
    ['local', undefined, LOCAL_SCRIPT_URL, 'local development server'],
    ['local', 'https://cdn.shop.example/t.js', 'https://cdn.shop.example/t.js', 'scriptUrl overrides env'],
  ] as [TrackerEnv | undefined, string | undefined, string, string][])(
    'env %s, scriptUrl %s → %s (%s)',
    (env, scriptUrl, expected) => {
      expect(resolveScriptUrl(env, scriptUrl)).toBe(expected);
    },
  );

  test('local points at the development server', () => {
    expect(LOCAL_SCRIPT_URL).toBe('http://localhost:3000/tracker.js');
  });
});
