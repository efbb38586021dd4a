import type { Config } from './config.ts';

/**
 * The service's public origin, the one start of every link it writes (invites, emails, referral
 * links to the demo page, application pages, unsubscribe, the docs link): PUBLIC_BASE_URL without
 * its trailing slash, else `http://localhost:PORT`. Never the request's Host, so two links never
 * name the service two ways.
 */
export function publicOrigin(config: Pick<Config, 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
}

/** The dashboard page where a staff invite or password-reset token sets a password. */
export const staffInviteLink = (config: Pick<Config, 'PUBLIC_BASE_URL' | 'PORT'>, token: string): string =>
  `${publicOrigin(config)}/dashboard/invite/${token}`;
