import type { H3 } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { createAdminHelpers } from './admin-helpers.ts';
import { programOperations, registerProgramRoutes } from './admin-programs.ts';
import { apiKeyOperations, registerApiKeyRoutes } from './admin-api-keys.ts';
import { partnerAdminOperations, registerPartnerAdminRoutes } from './admin-partners.ts';
import { registerRulesPreviewRoute, rulesPreviewOperations } from './admin-rules-preview.ts';
import { exportOperations, registerExportRoutes } from './admin-exports.ts';
import { customerAdminOperations, registerCustomerAdminRoutes } from './admin-customers.ts';
import { commissionAdminOperations, registerCommissionAdminRoutes } from './admin-commissions.ts';
import { registerPayoutAdminRoutes } from './admin-payouts.ts';
import { registerPayoutRunRoutes } from './admin-payout-runs.ts';
import { registerProviderSecretRoutes } from './admin-provider-secrets.ts';
import { providerConnectionOperations, registerProviderConnectionRoutes } from './admin-provider-connections.ts';
import { registerWebhookEventAdminRoutes, webhookEventAdminOperations } from './admin-webhook-events.ts';
import { recordListOperations, registerRecordListRoute } from './admin-records.ts';
import { eventEndpointOperations, registerEventEndpointRoutes } from './admin-event-endpoints.ts';
import { currencyOperations, registerCurrencyRoutes } from './admin-currencies.ts';

/**
 * The admin API, guarded by the ADMIN_TOKEN bearer or the dashboard's operator session: one file
 * per resource (admin-*.ts). The generic list route `/programs/:id/:list` comes last.
 */
export function registerAdminRoutes(app: H3, ctx: RouteContext): void {
  const helpers = createAdminHelpers(app, ctx);
  registerProgramRoutes(ctx, helpers);
  registerCurrencyRoutes(ctx, helpers);
  registerApiKeyRoutes(ctx, helpers);
  registerPartnerAdminRoutes(ctx, helpers);
  registerRulesPreviewRoute(ctx, helpers);
  registerExportRoutes(ctx, helpers);
  registerCustomerAdminRoutes(ctx, helpers);
  registerCommissionAdminRoutes(ctx, helpers);
  registerPayoutAdminRoutes(ctx, helpers);
  registerPayoutRunRoutes(ctx, helpers);
  registerProviderSecretRoutes(ctx, helpers);
  registerProviderConnectionRoutes(ctx, helpers);
  registerWebhookEventAdminRoutes(ctx, helpers);
  registerEventEndpointRoutes(ctx, helpers);
  registerRecordListRoute(ctx, helpers);
}

/** The document's entries of the routes above (payouts' and provider secrets': their own lists). */
export const adminOperations = [
  ...programOperations,
  ...currencyOperations,
  ...apiKeyOperations,
  ...partnerAdminOperations,
  ...rulesPreviewOperations,
  ...exportOperations,
  ...customerAdminOperations,
  ...commissionAdminOperations,
  ...providerConnectionOperations,
  ...webhookEventAdminOperations,
  ...eventEndpointOperations,
  ...recordListOperations,
];
