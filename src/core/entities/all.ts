import { ImportRun } from './import-run.ts';
import { ImportSourceRow } from './import-source-row.ts';
import { Program } from './program.ts';
import { ApiKey } from './api-key.ts';
import { Partner } from './partner.ts';
import { Click } from './click.ts';
import { Customer } from './customer.ts';
import { Sale } from './sale.ts';
import { TestEvent } from './test-event.ts';
import { Commission } from './commission.ts';
import { Refund } from './refund.ts';
import { PartnerBalance } from './partner-balance.ts';
import { BalanceEntry } from './balance-entry.ts';
import { Payout } from './payout.ts';
import { Notification } from './notification.ts';
import { PlatformFee } from './platform-fee.ts';
import { WebhookEvent } from './webhook-event.ts';
import { ProviderConnection } from './provider-connection.ts';
import { Session } from './session.ts';
import { PartnerInvite } from './partner-invite.ts';
import { ProviderSecret } from './provider-secret.ts';
import { AttributionConflict } from './attribution-conflict.ts';
import { ServiceInstance } from './service-instance.ts';
import { PaymentLink } from './payment-link.ts';
import { ParkedRefund } from './parked-refund.ts';
import { PartnerCode } from './partner-code.ts';
import { PartnerGroup } from './partner-group.ts';
import { EventEndpoint } from './event-endpoint.ts';
import { EventDelivery } from './event-delivery.ts';
import { PayoutMethod } from './payout-method.ts';
import { PayoutRun } from './payout-run.ts';
import { PayoutRunSkip } from './payout-run-skip.ts';
import { LedgerVerification } from './ledger-verification.ts';
import { ClickPruned, DailyRollup, RollupDirty, RollupState } from './daily-rollup.ts';
import { OrderRegistration } from './order-registration.ts';
import { McpToken } from './mcp-token.ts';
import { StatementKey } from './statement-key.ts';
import { StatementCheckpoint } from './statement-checkpoint.ts';
import { StaffUser } from './staff-user.ts';
import { StaffRole } from './staff-role.ts';
import { StaffInvite } from './staff-invite.ts';
import { StaffToken } from './staff-token.ts';
import { AuditEntry } from './audit-entry.ts';
import { ApplicationForm } from './application-form.ts';
import { PartnerApplication } from './partner-application.ts';
import { EmailMessage } from './email-message.ts';
import { EmailSettings, PartnerEmailPrefs } from './email-settings.ts';

/** Every entity, for the ORM configuration (the one list, not a barrel for imports). */
export const ENTITIES = [
  Program,
  ApiKey,
  Partner,
  Click,
  Customer,
  Sale,
  TestEvent,
  Commission,
  Refund,
  PartnerBalance,
  BalanceEntry,
  Payout,
  Notification,
  PlatformFee,
  WebhookEvent,
  ProviderConnection,
  Session,
  PartnerInvite,
  ProviderSecret,
  AttributionConflict,
  ServiceInstance,
  PaymentLink,
  ParkedRefund,
  PartnerCode,
  PartnerGroup,
  EventEndpoint,
  EventDelivery,
  PayoutMethod,
  PayoutRun,
  PayoutRunSkip,
  LedgerVerification,
  DailyRollup,
  RollupDirty,
  RollupState,
  ClickPruned,
  OrderRegistration,
  McpToken,
  StatementKey,
  StatementCheckpoint,
  StaffUser,
  StaffRole,
  StaffInvite,
  StaffToken,
  AuditEntry,
  ApplicationForm,
  PartnerApplication,
  EmailMessage,
  EmailSettings,
  PartnerEmailPrefs,
  ImportRun,
  ImportSourceRow,
];
