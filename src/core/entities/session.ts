import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Partner } from './partner.ts';
import { StaffUser } from './staff-user.ts';

/**
 * Who a browser session signs in: the operator (admin token holder, or a staff user when
 * `staffUser` is set) or one partner.
 */
export type SessionKind = 'operator' | 'partner';

/**
 * A browser session behind an HttpOnly cookie. Only the SHA-256 hash of the cookie value is
 * stored; `csrfToken` must come back in a header on every write (double submit via the API).
 */
export const Session = defineEntity({
  name: 'Session',
  indexes: [{ properties: ['expiresAt'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    kind: p.string().$type<SessionKind>(),
    tokenHash: p.string().unique(),
    csrfToken: p.string(),
    partner: () => p.manyToOne(Partner).mapToPk().nullable().index(),
    staffUser: () => p.manyToOne(StaffUser).mapToPk().nullable().index(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    endedAt: p.datetime().nullable(),
  },
});
export type ISession = InferEntity<typeof Session>;
