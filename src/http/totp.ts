import { Secret, TOTP } from 'otpauth';
import type { TotpPort } from '../core/staff/staff-totp.ts';

/** RFC 6238 defaults every authenticator app reads: SHA-1, 6 digits, 30-second steps. */
const totpOf = (secret: string, label = 'staff') =>
  new TOTP({
    issuer: 'Partner tracker',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret),
  });

/** Staff TOTP with `otpauth` (a maintained RFC 4226/6238 library); one step of drift either way. */
export const otpauthTotp: TotpPort = {
  generateSecret: () => new Secret({ size: 20 }).base32,
  uri: (secret, account) => totpOf(secret, account).toString(),
  matchStep(secret, code, now) {
    if (!/^\d{6}$/.test(code)) return null;
    const t = totpOf(secret);
    const delta = t.validate({ token: code, timestamp: now.getTime(), window: 1 });
    return delta === null ? null : t.counter({ timestamp: now.getTime() }) + delta;
  },
};
