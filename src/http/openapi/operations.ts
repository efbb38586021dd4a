import type { Operation } from './operation.ts';
import { healthzOperation, readyzOperation } from '../routes/health.ts';
import { trackerScriptOperation } from '../routes/tracker-script.ts';
import { statementKeysOperation } from '../routes/statement-keys.ts';
import { demoPageOperation } from '../routes/demo-page.ts';
import { metricsOperation } from '../routes/metrics.ts';
import { apiDocsOperations } from '../routes/api-docs.ts';
import { faviconOperations } from '../routes/favicon.ts';
import { trackClickOperation } from '../routes/track-click.ts';
import { trackLeadOperation } from '../routes/track-lead.ts';
import { trackBrowserLeadOperation } from '../routes/track-browser-lead.ts';
import { trackSaleOperation } from '../routes/track-sale.ts';
import { trackRefundOperation } from '../routes/track-refund.ts';
import { trackTestOperation } from '../routes/track-test.ts';
import { trackCheckoutOperation } from '../routes/track-checkout.ts';
import { cliStatusOperation } from '../routes/cli-status.ts';
import { webhookOperation } from '../routes/webhook.ts';
import { adminOperations } from '../routes/admin.ts';
import { adminDashboardOperations } from '../routes/admin-dashboard.ts';
import { payoutOperations } from '../routes/admin-payouts.ts';
import { payoutRunOperations } from '../routes/admin-payout-runs.ts';
import { providerSecretOperations } from '../routes/admin-provider-secrets.ts';
import { sessionOperations } from '../routes/sessions.ts';
import { staffSessionOperations } from '../routes/staff-sessions.ts';
import { partnerOperations } from '../routes/partner.ts';
import { dashboardAppOperations } from '../routes/dashboard-app.ts';
import { mcpOperations } from '../routes/mcp.ts';
import { applicationOperations } from '../routes/applications.ts';
import { applyPageOperations } from '../routes/apply-page.ts';
import { partnerEmailPrefsOperations } from '../routes/partner-email-prefs.ts';

/**
 * Every documented route, each declared in its route file. A new route adds its entry here; the
 * contract test fails for a registered route without one (test/api/openapi.test.ts).
 */
export const OPERATIONS: readonly Operation[] = [
  trackClickOperation,
  trackLeadOperation,
  trackBrowserLeadOperation,
  trackSaleOperation,
  trackRefundOperation,
  trackTestOperation,
  trackCheckoutOperation,
  cliStatusOperation,
  webhookOperation,
  ...adminOperations,
  ...adminDashboardOperations,
  ...payoutOperations,
  ...payoutRunOperations,
  ...providerSecretOperations,
  ...sessionOperations,
  ...staffSessionOperations,
  ...partnerOperations,
  ...partnerEmailPrefsOperations,
  ...applicationOperations,
  ...applyPageOperations,
  ...dashboardAppOperations,
  ...mcpOperations,
  healthzOperation,
  readyzOperation,
  metricsOperation,
  trackerScriptOperation,
  statementKeysOperation,
  demoPageOperation,
  ...apiDocsOperations,
  ...faviconOperations,
];
