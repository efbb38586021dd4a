import { randomBytes } from 'node:crypto';
import { constantTimeEqual, sha256Hex } from '../shared/crypto.ts';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { ApiKey, type ApiKeyMode, type IApiKey } from '../entities/api-key.ts';
import { Program } from '../entities/program.ts';

/** SHA-256 hex of a key: what is stored and looked up. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export type IssuedKey = { id: number; key: string; prefix: string; mode: ApiKeyMode };

/** Issues a key; the clear key is returned here once and never stored. */
export async function issueApiKey(deps: CoreDeps, programId: number, mode: ApiKeyMode): Promise<IssuedKey> {
  const em = deps.em;
  await em.findOneOrFail(
    Program,
    { id: programId },
    { failHandler: () => new AppError('not_found', 'No such program') },
  );
  const key = `trk_${mode}_${randomBytes(24).toString('base64url')}`;
  const prefix = key.slice(0, 13);
  const row = em.create(ApiKey, {
    program: programId,
    mode,
    keyHash: hashApiKey(key),
    prefix,
    status: 'active',
    createdAt: deps.clock(),
  });
  await em.flush();
  return { id: row.id, key, prefix, mode };
}

/**
 * Retires a key. With `rotateBy` in the future the key keeps working (responses carry a
 * rotation warning) until then; without it the key is refused at once.
 */
export async function retireApiKey(
  deps: CoreDeps,
  programId: number,
  keyId: number,
  rotateBy: Date | null,
): Promise<IApiKey> {
  const em = deps.em;
  const row = await em.findOne(ApiKey, { id: keyId, program: programId });
  if (!row) throw new AppError('not_found', 'No such API key in this program');
  row.status = 'retired';
  row.retiredAt = deps.clock();
  row.rotateBy = rotateBy;
  await em.flush();
  return row;
}

/** Rotation: issues a new key of the same mode and retires the old one with a grace deadline. */
export async function rotateApiKey(
  deps: CoreDeps,
  programId: number,
  keyId: number,
  graceDays: number,
): Promise<IssuedKey & { retiredKeyId: number; rotateBy: Date | null }> {
  const old = await deps.em.findOne(ApiKey, { id: keyId, program: programId });
  if (!old) throw new AppError('not_found', 'No such API key in this program');
  const issued = await issueApiKey(deps, programId, old.mode);
  const rotateBy = graceDays > 0 ? new Date(deps.clock().getTime() + graceDays * 86_400_000) : null;
  await retireApiKey(deps, programId, keyId, rotateBy);
  return { ...issued, retiredKeyId: keyId, rotateBy };
}

export type AuthenticatedKey = {
  keyId: number;
  programId: number;
  mode: ApiKeyMode;
  /** Set while a retired key is still inside its rotate-by grace period. */
  rotateBy: Date | null;
  /** The program's per-key request budget. */
  rateLimitPerMinute: number;
};

/** Resolves a bearer token to its key and its program's rate limit, or throws the spec's 401 errors. */
export async function authenticateApiKey(deps: CoreDeps, token: string, docsUrl: string): Promise<AuthenticatedKey> {
  const hash = hashApiKey(token);
  const em = deps.em;
  const row = await em.findOne(ApiKey, { keyHash: hash });
  // Constant-time comparison: defence in depth after the indexed lookup.
  if (!row || !constantTimeEqual(row.keyHash, hash)) throw new AppError('unauthorized', 'Invalid API key');
  // A retired key still answers inside its rotate-by grace period (the caller warns).
  const rotateBy = row.status === 'retired' ? (row.rotateBy ?? null) : null;
  if (row.status === 'retired' && (!rotateBy || rotateBy.getTime() <= deps.clock().getTime())) {
    throw new AppError(
      'api_key_rotation_required',
      'This API key was retired; create a new key in the program settings',
      {},
      {
        hint: 'Issue a new key (admin CLI: keys:issue or keys:rotate) and replace this one in your server configuration.',
        docs_url: docsUrl,
      },
    );
  }
  const program = await em.findOneOrFail(Program, { id: row.program }, { fields: ['rateLimitPerMinute'] });
  return {
    keyId: row.id,
    programId: row.program,
    mode: row.mode,
    rotateBy,
    rateLimitPerMinute: program.rateLimitPerMinute,
  };
}
