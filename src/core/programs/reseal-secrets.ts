/**
 * Re-seals every sealed value under the current key (the first of DATA_ENCRYPTION_KEYS), the step
 * of a key rotation between adding the new key and dropping the old one (sealed-secrets.ts).
 * Each sealed column is listed in `SEALED_COLUMNS`; a feature that stores another adds it there.
 */
import type { EntityManager } from '@mikro-orm/sql';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { ProviderConnection } from '../entities/provider-connection.ts';
import { API_KEY_CONTEXT } from '../integrations/provider-api-keys.ts';
import { PayoutMethod } from '../entities/payout-method.ts';
import { PAYOUT_DETAILS_CONTEXT } from '../payouts/payout-methods.ts';
import { EventEndpoint } from '../entities/event-endpoint.ts';
import { ENDPOINT_SECRET_CONTEXT, isPlaintextSecret } from '../outbound/endpoint-secrets.ts';
import { StatementKey } from '../entities/statement-key.ts';
import { STATEMENT_KEY_CONTEXT } from '../ledger/statement-keys.ts';

type SealedColumn = {
  /** `table.column`, as reported. */
  name: string;
  /** The associated data the values are sealed with. */
  context: string;
  rows(em: EntityManager): Promise<Array<{ id: number; sealed: string }>>;
  /** Writes `next` only if the row still holds `prev` (a concurrent change wins); whether it did. */
  replace(em: EntityManager, id: number, prev: string, next: string): Promise<boolean>;
  /** A value stored in clear before the column was sealed: sealed as it is (absent: none exist). */
  plaintext?(value: string): boolean;
};

/** An event endpoint's secret column (`secret` or `previousSecret`); rows from before sealing hold plaintext. */
function endpointSecretColumn(prop: 'secret' | 'previousSecret', column: string): SealedColumn {
  return {
    name: `event_endpoint.${column}`,
    context: ENDPOINT_SECRET_CONTEXT,
    plaintext: isPlaintextSecret,
    async rows(em) {
      const rows = await em.find(
        EventEndpoint,
        { [prop]: { $ne: null } },
        { fields: ['id', prop], orderBy: { id: 'asc' }, disableIdentityMap: true },
      );
      return rows.map((r) => ({ id: r.id, sealed: r[prop]! }));
    },
    async replace(em, id, prev, next) {
      return (await em.nativeUpdate(EventEndpoint, { id, [prop]: prev }, { [prop]: next })) === 1;
    },
  };
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    name: 'provider_connection.api_key_sealed',
    context: API_KEY_CONTEXT,
    async rows(em) {
      const rows = await em.find(
        ProviderConnection,
        { apiKeySealed: { $ne: null } },
        { fields: ['id', 'apiKeySealed'], orderBy: { id: 'asc' }, disableIdentityMap: true },
      );
      return rows.map((r) => ({ id: r.id, sealed: r.apiKeySealed! }));
    },
    async replace(em, id, prev, next) {
      return (await em.nativeUpdate(ProviderConnection, { id, apiKeySealed: prev }, { apiKeySealed: next })) === 1;
    },
  },
  {
    name: 'payout_method.details_sealed',
    context: PAYOUT_DETAILS_CONTEXT,
    async rows(em) {
      const rows = await em.find(
        PayoutMethod,
        {},
        { fields: ['id', 'detailsSealed'], orderBy: { id: 'asc' }, disableIdentityMap: true },
      );
      return rows.map((r) => ({ id: r.id, sealed: r.detailsSealed }));
    },
    async replace(em, id, prev, next) {
      return (await em.nativeUpdate(PayoutMethod, { id, detailsSealed: prev }, { detailsSealed: next })) === 1;
    },
  },
  endpointSecretColumn('secret', 'secret'),
  endpointSecretColumn('previousSecret', 'previous_secret'),
  {
    name: 'statement_key.private_key_sealed',
    context: STATEMENT_KEY_CONTEXT,
    async rows(em) {
      const rows = await em.find(
        StatementKey,
        {},
        { fields: ['id', 'privateKeySealed'], orderBy: { id: 'asc' }, disableIdentityMap: true },
      );
      return rows.map((r) => ({ id: r.id, sealed: r.privateKeySealed }));
    },
    async replace(em, id, prev, next) {
      return (await em.nativeUpdate(StatementKey, { id, privateKeySealed: prev }, { privateKeySealed: next })) === 1;
    },
  },
];

export type ResealReport = { sealKeyId: string; resealed: number; unchanged: number };

/**
 * Opens each value sealed under another key than the current one and seals it again; a column's
 * plaintext values (from before it was sealed) are sealed (counted as re-sealed).
 * @throws AppError `invalid_request` when no key is configured; an Error naming the column and row
 * when a value cannot be opened (its key is no longer configured): nothing after it is re-sealed.
 */
export async function resealSecrets(deps: CoreDeps): Promise<ResealReport> {
  const sealer = deps.sealer;
  if (!sealer?.canSeal || !sealer.sealKeyId)
    throw new AppError('invalid_request', 'No encryption key is configured: set DATA_ENCRYPTION_KEYS first');
  const report: ResealReport = { sealKeyId: sealer.sealKeyId, resealed: 0, unchanged: 0 };
  for (const column of SEALED_COLUMNS) {
    for (const row of await column.rows(deps.em)) {
      if (sealer.keyIdOf(row.sealed) === sealer.sealKeyId) {
        report.unchanged++;
        continue;
      }
      let plain: string;
      try {
        plain = column.plaintext?.(row.sealed) ? row.sealed : sealer.open(row.sealed, column.context);
      } catch (err) {
        throw new AppError('invalid_request', `${column.name} of row ${row.id}: ${(err as Error).message}`, {
          resealed: report.resealed,
          unchanged: report.unchanged,
        });
      }
      if (await column.replace(deps.em, row.id, row.sealed, sealer.seal(plain, column.context))) report.resealed++;
    }
  }
  deps.log.info(report, 'sealed secrets re-sealed under the current key');
  return report;
}
