import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';
import { createSealer, generateSealingKey, parseSealingKeys, type Sealer } from './core/shared/sealed-secrets.ts';

/** Embedded mode's generated key, beside the admin token. */
export const DATA_KEY_FILE = 'data-key';

/**
 * The process's sealer. `DATA_ENCRYPTION_KEYS` when set. Otherwise, in embedded mode, a key
 * generated once into `DATA_DIR/data-key` (mode 0600; an in-memory database gets a key that lives
 * as long as the process, like its data), so `npm start` works with nothing set. In production
 * mode (`DATABASE_URL` set) without the variable nothing can be sealed or opened, and the error
 * says what to set: a key beside the database it protects would protect nothing.
 */
export function resolveSealer(config: Pick<Config, 'DATA_ENCRYPTION_KEYS' | 'DATABASE_URL' | 'DATA_DIR'>): Sealer {
  if (config.DATA_ENCRYPTION_KEYS) return createSealer(config.DATA_ENCRYPTION_KEYS);
  if (config.DATABASE_URL)
    return createSealer(
      null,
      'DATA_ENCRYPTION_KEYS is not set: production mode stores no sealed secret without it ' +
        '(set it to keyid:base64-of-32-bytes, e.g. k1:$(openssl rand -base64 32), on every process)',
    );
  if (config.DATA_DIR.startsWith('memory:')) return createSealer(parseSealingKeys(generateSealingKey('mem')));
  const file = join(config.DATA_DIR, DATA_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    // `wx`: two first starts racing keep one key (the loser reads the winner's).
    try {
      writeFileSync(file, `${generateSealingKey('local1')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  try {
    return createSealer(parseSealingKeys(readFileSync(file, 'utf8').trim()));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`, { cause: err });
  }
}
