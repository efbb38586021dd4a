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
import { mcpTokenOperations, registerMcpTokenRoutes } from './admin-mcp-tokens.ts';
import { registerStatementKeyRoutes, statementKeyOperations } from './admin-statement-keys.ts';
import { registerStaffRoutes, staffOperations } from './admin-staff.ts';
import { meOperations, registerMeRoutes } from './admin-me.ts';
import { auditLogOperations, registerAuditLogRoutes } from './admin-audit-log.ts';
import { applicationAdminOperations, registerApplicationAdminRoutes } from './admin-applications.ts';
import { currencyOperations, registerCurrencyRoutes } from './admin-currencies.ts';
import { ledgerVerifyOperations, registerLedgerVerifyRoutes } from './admin-ledger-verify.ts';
import { importOperations, registerImportRoutes } from './admin-imports.ts';

/**
 * The admin API, guarded by the ADMIN_TOKEN bearer, a staff token or the dashboard's session, each
 * route by its permission (admin-permissions.ts), every write audited: one file per resource
 * (admin-*.ts). The generic list route `/programs/:id/:list` comes last.
 */
export function registerAdminRoutes(app: H3, ctx: RouteContext): void {
  const helpers = createAdminHelpers(app, ctx);
  registerProgramRoutes(ctx, helpers);
  registerCurrencyRoutes(ctx, helpers);
  registerApiKeyRoutes(ctx, helpers);
  registerPartnerAdminRoutes(ctx, helpers);
  registerRulesPreviewRoute(ctx, helpers);
  registerLedgerVerifyRoutes(ctx, helpers);
  registerExportRoutes(ctx, helpers);
  registerCustomerAdminRoutes(ctx, helpers);
  registerCommissionAdminRoutes(ctx, helpers);
  registerPayoutAdminRoutes(ctx, helpers);
  registerPayoutRunRoutes(ctx, helpers);
  registerProviderSecretRoutes(ctx, helpers);
  registerProviderConnectionRoutes(ctx, helpers);
  registerWebhookEventAdminRoutes(ctx, helpers);
  registerEventEndpointRoutes(ctx, helpers);
  registerMcpTokenRoutes(ctx, helpers);
  registerStatementKeyRoutes(ctx, helpers);
  registerStaffRoutes(ctx, helpers);
  registerMeRoutes(ctx, helpers);
  registerAuditLogRoutes(ctx, helpers);
  registerApplicationAdminRoutes(ctx, helpers);
  registerImportRoutes(ctx, helpers);
  registerRecordListRoute(ctx, helpers);
}

/** The document's entries of the routes above (payouts' and provider secrets': their own lists). */
export const adminOperations = [
  ...programOperations,
  ...currencyOperations,
  ...apiKeyOperations,
  ...partnerAdminOperations,
  ...rulesPreviewOperations,
  ...ledgerVerifyOperations,
  ...exportOperations,
  ...customerAdminOperations,
  ...commissionAdminOperations,
  ...providerConnectionOperations,
  ...webhookEventAdminOperations,
  ...eventEndpointOperations,
  ...mcpTokenOperations,
  ...statementKeyOperations,
  ...staffOperations,
  ...meOperations,
  ...auditLogOperations,
  ...applicationAdminOperations,
  ...importOperations,
  ...recordListOperations,
];
