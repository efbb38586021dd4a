/**
 * Per-provider builders for end-to-end webhook tests (one module each in ./kits/): payloads shaped
 * like real deliveries (the unit-test fixtures, with ids, amounts and tracker keys filled in) and
 * their signature headers, computed at test time against the harness clock. One interface
 * (./kits/kit.ts), so the common scenarios run unchanged against every provider.
 */
import type { MetadataWebhookProvider } from '../../src/core/shared/vocabulary.ts';
import type { ProviderKit } from './kits/kit.ts';
import { creemKit } from './kits/creem-kit.ts';
import { dodoKit } from './kits/dodo-kit.ts';
import { lemonSqueezyKit } from './kits/lemonsqueezy-kit.ts';
import { paddleKit } from './kits/paddle-kit.ts';
import { polarKit } from './kits/polar-kit.ts';
import { stripeKit } from './kits/stripe-kit.ts';

/**
 * Every metadata provider's kit: typed by the provider list, so a new provider needs its kit here.
 * The VietQR gateways (PayOS, SePay) carry no metadata and have their own tests (payos.test.ts, sepay.test.ts).
 */
export const PROVIDER_KITS: Record<MetadataWebhookProvider, ProviderKit> = {
  stripe: stripeKit,
  paddle: paddleKit,
  lemonsqueezy: lemonSqueezyKit,
  polar: polarKit,
  dodo: dodoKit,
  creem: creemKit,
};
