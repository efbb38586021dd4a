/**
 * Reversals exact under any delivery order (./delivery-order.ts): providers without disputes
 * (Lemon Squeezy's running totals, Polar) and those whose refunds go through the API (the direct
 * API, PayOS, SePay). CI runs 5 scenarios each; `PROPERTY_RUNS=500` for a long run.
 */
import { lemonSqueezyKit } from '../webhooks/kits/lemonsqueezy-kit.ts';
import { polarKit } from '../webhooks/kits/polar-kit.ts';
import { defineDeliveryOrderProperties } from './delivery-order.ts';
import { apiDriver, kitDriver, payosDriver, sepayDriver } from './drivers.ts';

defineDeliveryOrderProperties([
  [kitDriver(lemonSqueezyKit, { refunds: 'cumulative', disputes: null }), 5],
  [kitDriver(polarKit, { refunds: 'each', disputes: null, also: 'totals' }), 5],
  [apiDriver, 5],
  [payosDriver, 5],
  [sepayDriver, 5],
]);
