import { Webhook } from 'standardwebhooks';

/** A new endpoint signing secret: the Standard Webhooks form, `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(random: (n: number) => Uint8Array): string {
  return `whsec_${Buffer.from(random(32)).toString('base64')}`;
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-id` (the event's, the same on every
 * attempt), `webhook-timestamp` (this attempt's, seconds) and `webhook-signature`, one `v1,…`
 * entry per active secret (two during a rotation), space-separated, by the `standardwebhooks`
 * package's own signer.
 */
export function signEvent(
  secrets: readonly string[],
  eventId: string,
  at: Date,
  payload: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const signature = secrets.map((s) => new Webhook(s).sign(eventId, at, payload)).join(' ');
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}
