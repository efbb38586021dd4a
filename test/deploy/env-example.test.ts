import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { configSchema, loadConfig } from '../../src/config.ts';

const ROOT = new URL('../../', import.meta.url);

/** `KEY=value` and `# KEY=value` lines of .env.example. */
function readEnvExample(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(new URL('.env.example', ROOT), 'utf8').split('\n')) {
    const m = /^(?:#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

test('.env.example names every configuration variable and nothing else', () => {
  expect([...readEnvExample().keys()].sort()).toEqual(Object.keys(configSchema.shape).sort());
});

test('.env.example shows each default as the schema has it, and example values the schema accepts', () => {
  const defaults = loadConfig({}) as Record<string, unknown>;
  for (const [key, value] of readEnvExample()) {
    if (defaults[key] !== undefined) expect(`${key}=${value}`).toBe(`${key}=${String(defaults[key])}`);
    else if (value !== '') expect(() => loadConfig({ [key]: value }), key).not.toThrow();
  }
});

test('a LICENSE is there and package.json names the same licence', () => {
  const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8'));
  expect(pkg.license).toBe('MIT');
  expect(readFileSync(new URL('LICENSE', ROOT), 'utf8')).toMatch(/^MIT License/);
});
