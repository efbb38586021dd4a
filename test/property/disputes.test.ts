/**
 * Reversals exact under any delivery order (./delivery-order.ts): the providers with disputes.
 * CI runs 5 scenarios each; `PROPERTY_RUNS=500` for a long run.
 */
import { creemKit } from '../webhooks/kits/creem-kit.ts';
import { dodoKit } from '../webhooks/kits/dodo-kit.ts';
import { paddleKit } from '../webhooks/kits/paddle-kit.ts';
import { stripeKit } from '../webhooks/kits/stripe-kit.ts';
import { defineDeliveryOrderProperties } from './delivery-order.ts';
import { kitDriver } from './drivers.ts';

defineDeliveryOrderProperties([
  [kitDriver(stripeKit, { refunds: 'each', disputes: 'stripe', also: 'list' }), 5],
  [kitDriver(paddleKit, { refunds: 'each', disputes: 'paddle' }), 5],
  [kitDriver(dodoKit, { refunds: 'each', disputes: 'dodo' }), 5],
  [kitDriver(creemKit, { refunds: 'each', disputes: 'creem' }), 5],
]);
