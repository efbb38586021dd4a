import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect, test } from 'vitest';
import {
  createSealer,
  generateSealingKey,
  parseSealingKeys,
  SealedSecretError,
  secretHint,
} from '../../src/core/shared/sealed-secrets.ts';
import { loadConfig } from '../../src/config.ts';
import { DATA_KEY_FILE, resolveSealer } from '../../src/sealing-keys.ts';

const oldKey = generateSealingKey('old');
const newKey = generateSealingKey('new');

test('round trip: a sealed value opens to itself, names its key, and never contains the plain text', () => {
  const sealer = createSealer(parseSealingKeys(oldKey));
  const sealed = sealer.seal('lsk_live_0123456789abcdef', 'provider_connection.api_key');
  expect(sealed).toMatch(/^v1:old:[\w-]+:[\w-]+:[\w-]+$/);
  expect(sealed).not.toContain('0123456789');
  expect(sealer.keyIdOf(sealed)).toBe('old');
  expect(sealer.open(sealed, 'provider_connection.api_key')).toBe('lsk_live_0123456789abcdef');
  // A fresh IV each time: the same secret never seals to the same text.
  expect(sealer.seal('same')).not.toBe(sealer.seal('same'));
  expect(sealer.open(sealer.seal(''))).toBe('');
  expect(sealer.open(sealer.seal('ünïcødé ✓'))).toBe('ünïcødé ✓');
});

test('rotation: a value sealed with the old key opens once a new key is put first; new values use the new key', () => {
  const before = createSealer(parseSealingKeys(oldKey));
  const sealed = before.seal('secret-before-rotation');
  const after = createSealer(parseSealingKeys(`${newKey}, ${oldKey}`));
  expect(after.sealKeyId).toBe('new');
  expect(after.open(sealed)).toBe('secret-before-rotation');
  const resealed = after.seal(after.open(sealed));
  expect(after.keyIdOf(resealed)).toBe('new');
  // Once the old key is dropped, only the re-sealed value opens.
  const newOnly = createSealer(parseSealingKeys(newKey));
  expect(newOnly.open(resealed)).toBe('secret-before-rotation');
  expect(() => newOnly.open(sealed)).toThrow(/sealed with key "old", which DATA_ENCRYPTION_KEYS does not hold/);
});

test('a tampered value, or one opened for another use, fails', () => {
  const sealer = createSealer(parseSealingKeys(oldKey));
  const sealed = sealer.seal('do-not-change-me', 'a');
  const parts = sealed.split(':');
  const ct = Buffer.from(parts[4]!, 'base64url');
  ct[0]! ^= 1;
  const altered = [...parts.slice(0, 4), ct.toString('base64url')].join(':');
  expect(() => sealer.open(altered, 'a')).toThrow(SealedSecretError);
  expect(() => sealer.open(altered, 'a')).toThrow(/does not authenticate/);
  expect(() => sealer.open(sealed, 'b')).toThrow(/does not authenticate/);
  expect(() => sealer.open('plain text')).toThrow(/not a sealed value/);
  expect(() => sealer.open(`v1:old:${parts[2]}:AAAA:${parts[4]}`, 'a')).toThrow(/malformed/);
});

test('a wrong key id fails clearly; a key under a reused id does not open', () => {
  const sealed = createSealer(parseSealingKeys(oldKey)).seal('x');
  const other = createSealer(parseSealingKeys(newKey));
  expect(() => other.open(sealed)).toThrow(/key "old", which DATA_ENCRYPTION_KEYS does not hold/);
  const impostor = createSealer(parseSealingKeys(`old:${randomBytes(32).toString('base64')}`));
  expect(() => impostor.open(sealed)).toThrow(/does not authenticate/);
});

test('no configured key: sealing and opening refuse with the message that says what to set', () => {
  const sealer = createSealer(null, 'set DATA_ENCRYPTION_KEYS');
  expect(sealer.canSeal).toBe(false);
  expect(() => sealer.seal('x')).toThrow('set DATA_ENCRYPTION_KEYS');
  expect(() => sealer.open('v1:k:a:b:c')).toThrow('set DATA_ENCRYPTION_KEYS');
});

test('DATA_ENCRYPTION_KEYS is validated at start, naming the faulty entry without echoing a key', () => {
  expect(loadConfig({ DATA_ENCRYPTION_KEYS: `${newKey},${oldKey}` }).DATA_ENCRYPTION_KEYS?.sealKeyId).toBe('new');
  expect(() => loadConfig({ DATA_ENCRYPTION_KEYS: 'k1:c2hvcnQ=' })).toThrow(
    /DATA_ENCRYPTION_KEYS: key "k1" is 5 bytes/,
  );
  expect(() => loadConfig({ DATA_ENCRYPTION_KEYS: 'nocolon' })).toThrow(/entry 1: expected keyid:base64/);
  expect(() => loadConfig({ DATA_ENCRYPTION_KEYS: `${oldKey},${oldKey}` })).toThrow(/"old" appears twice/);
});

test('embedded mode without the variable keeps a generated key in DATA_DIR; production mode refuses to seal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sealing-'));
  try {
    const first = resolveSealer({ DATA_DIR: dir });
    const sealed = first.seal('kept across restarts');
    expect(statSync(join(dir, DATA_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(resolveSealer({ DATA_DIR: dir }).open(sealed)).toBe('kept across restarts');
    // Moving to the variable: the file's line, after the new key, still opens old values.
    const line = readFileSync(join(dir, DATA_KEY_FILE), 'utf8').trim();
    const moved = resolveSealer({ DATA_DIR: dir, DATA_ENCRYPTION_KEYS: parseSealingKeys(`${newKey},${line}`) });
    expect(moved.open(sealed)).toBe('kept across restarts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const prod = resolveSealer({ DATA_DIR: './.data', DATABASE_URL: 'postgres://x@127.0.0.1/db' });
  expect(() => prod.seal('x')).toThrow(/DATA_ENCRYPTION_KEYS is not set: production mode/);
});

test('the hint shows the last 4 characters of a long enough secret only', () => {
  expect(secretHint('lsk_live_0123456789abcd')).toBe('…abcd');
  expect(secretHint('short')).toBe('…');
});
