// The API routes the dashboard and the portal call, by session, method and path: for each, the
// body it answers with and the body it takes. Each is the server's own type: the zod schema its
// OpenAPI entry documents (and the contract test checks responses against) or the type its
// handler is checked against (src/http/wire/responses.ts, program-config.ts, records.ts), and the
// `z.input` of the schema the route validates its request with (src/http/wire/requests.ts...).
// Type-only imports: nothing of the server reaches the bundle, and those files import no Node
// modules (this config has no Node types). test/api/dashboard-routes.test.ts checks every path
// here against the routes the server registers. The shared building blocks are in api-types-base.ts,
// the routes of some areas in files of their own (api-types-imports.ts), joined here.
import type { In, Program, Query, Route } from './api-types-base.ts';
import type { ImportLinks, ImportRoutes } from './api-types-imports.ts';
import type { ListableKind } from '../../src/core/reporting/listable.ts';
import type { OutboundEventType, WebhookProvider } from '../../src/core/shared/vocabulary.ts';
import type {
  ProgramBody,
  ProgramListBody,
  programCreateSchema,
  programUpdateSchema,
} from '../../src/http/wire/program-config.ts';
import type { ListRowWire, RecordListWire } from '../../src/http/wire/records.ts';
import type {
  DeliveriesBody,
  DeliveryBody,
  EndpointBody,
  EndpointsBody,
  EndpointWithSecretBody,
} from '../../src/http/wire/event-endpoints.ts';
import type { PayoutMethodBody, PayoutRunBody } from '../../src/http/wire/payouts.ts';
import type { CommissionSummaryBody } from '../../src/http/wire/commission-summary.ts';
import type { PayoutPreviewBody } from '../../src/http/wire/payout-preview.ts';
import type { LedgerVerificationBody } from '../../src/http/wire/ledger-verification.ts';
import type { ReviewResultsBody } from '../../src/http/wire/commission-reviews.ts';
import type { PartnerPayoutBody } from '../../src/http/wire/partner-payouts.ts';
import type { payoutMethodSchema } from '../../src/core/payouts/payout-methods.ts';
import type {
  partnerCodeCreateSchema,
  partnerCreateSchema,
  partnerGroupAssignSchema,
  partnerGroupCreateSchema,
  partnerGroupUpdateSchema,
} from '../../src/http/wire/partners.ts';
import type * as requests from '../../src/http/wire/requests.ts';
import type {
  ApplicationFormBody,
  ApplicationListBody,
  DecisionsBody,
  EmailSettingsBody,
  EmailPrefsBody,
  emailPrefsSchema,
  applicationFormSchema,
  approveSchema,
  emailSettingsSchema,
  rejectSchema,
} from '../../src/http/wire/applications.ts';
import type {
  CommissionApprovedBody,
  LeadReversalBody,
  InviteDescriptionBody,
  IssuedKeyBody,
  PaidPayoutBody,
  PartnerCommissionsBody,
  PartnerCodeBody,
  PartnerGroupBody,
  RulesPreviewBody,
  PartnerCreatedBody,
  PartnerEarningsBody,
  PartnerInviteBody,
  PartnerNotificationsBody,
  PartnerProfileBody,
  PayoutBody,
  ProviderConnectedBody,
  ProviderSecretBody,
  ProviderSecretsBody,
  RemovedBody,
  ReplayBody,
  RetiredKeyBody,
  RotatedKeyBody,
  SeriesBody,
  SessionBody,
  SignedOutBody,
  StatementBody,
  UnreadCountBody,
  WebhookEventBody,
} from '../../src/http/wire/responses.ts';

import type { CurrenciesBody } from '../../src/http/wire/currencies.ts';

// What the pages hold: bodies, list rows, programs.
import type {
  StaffAddedBody,
  StaffListBody,
  StaffMemberBody,
  StaffRemovedBody,
  staffAddSchema,
  staffRoleSchema,
} from '../../src/http/routes/admin-staff.ts';
import type {
  CreatedStaffTokenBody,
  MeBody,
  StaffTokenBody,
  StaffTokensBody,
  TotpConfirmedBody,
  TotpStartBody,
  tokenCreateSchema,
  totpConfirmSchema,
} from '../../src/http/routes/admin-me.ts';
import type { AuditListBody } from '../../src/http/routes/admin-audit-log.ts';
import type { PasswordResetBody, resetSchema, StaffInviteBody } from '../../src/http/routes/staff-sessions.ts';

export type { ProgramWire } from '../../src/http/wire/program-config.ts';
export type { StaffMemberWire } from '../../src/http/routes/admin-staff.ts';
export type { StaffTokenWire } from '../../src/http/routes/admin-me.ts';
export type { AuditEntryWire } from '../../src/http/routes/admin-audit-log.ts';
export type { ProviderSecretWire } from '../../src/http/wire/responses.ts';
/** An outbound event endpoint and one of its deliveries, as listed. */
export type EventEndpointWire = EndpointsBody['endpoints'][number];
export type EventDeliveryWire = DeliveriesBody['deliveries'][number];
export type { EndpointWithSecretBody, OutboundEventType, PayoutMethodBody, PayoutPreviewBody, PayoutRunBody };
export type { ReviewResultsBody, MeBody, StaffInviteBody };
export type { BodyOf, InputOf, PathOf } from './api-types-base.ts';
export type { ImportRunWire } from './api-types-imports.ts';
export type {
  InviteDescriptionBody,
  IssuedKeyBody,
  ListRowWire,
  PartnerCommissionsBody,
  PartnerEarningsBody,
  PartnerInviteBody,
  PartnerNotificationsBody,
  PartnerProfileBody,
  ProviderConnectedBody,
  RotatedKeyBody,
  RulesPreviewBody,
  SeriesBody,
  SessionBody,
  StatementBody,
  WebhookEventBody,
  WebhookProvider,
  CommissionSummaryBody,
};

/** Reward rules as a program or a group takes them (the Rewards page's JSON). */
export type RewardRulesInput = NonNullable<In<typeof programUpdateSchema>['reward_rules']>;
type EventEndpoint = `${Program}/event-endpoints/${number}`;
type Provider = `${Program}/providers/${WebhookProvider}`;
/** `GET /programs/:id/:list`, one route per list. */
type ListRoutes = { [K in ListableKind]: Route<Query<`${Program}/${K}`>, RecordListWire<K>> }[ListableKind];

type Partner = '/api/v1/partner';
export type OperatorSession = '/api/v1/dashboard/session';
export type PartnerSession = `${Partner}/session`;

/** The routes of each session kind by method (the session routes: read, sign in, sign out). */
export type ApiRoutes = {
  operator: {
    GET:
      | Route<OperatorSession, SessionBody>
      | Route<'/api/v1/admin/programs', ProgramListBody>
      | Route<'/api/v1/admin/currencies', CurrenciesBody>
      | Route<Program, ProgramBody>
      | Route<Query<`${Program}/stats`>, SeriesBody>
      | Route<Query<`${Program}/stats/commissions`>, CommissionSummaryBody>
      | Route<`${Program}/ledger/verification`, LedgerVerificationBody>
      | ListRoutes
      | Route<`${Program}/partners/${number}/statement`, StatementBody>
      | Route<`${Program}/webhook-events/${number}`, WebhookEventBody>
      | Route<`${Provider}/secrets`, ProviderSecretsBody>
      | Route<`${Program}/event-endpoints`, EndpointsBody>
      | Route<Query<`${EventEndpoint}/deliveries`>, DeliveriesBody>
      | Route<Query<`${Program}/payout-runs/preview`>, PayoutPreviewBody>
      | Route<`${Program}/payout-runs/${number}`, PayoutRunBody>
      | Route<'/api/v1/admin/me', MeBody>
      | Route<'/api/v1/admin/me/tokens', StaffTokensBody>
      | Route<`${Program}/staff`, StaffListBody>
      | Route<Query<`${Program}/audit`>, AuditListBody>
      | Route<`/api/v1/dashboard/invites/${string}`, StaffInviteBody>
      | Route<`${Program}/application-form`, ApplicationFormBody>
      | Route<Query<`${Program}/applications`>, ApplicationListBody>
      | Route<`${Program}/email-settings`, EmailSettingsBody>
      | ImportRoutes['GET'];
    POST:
      | Route<OperatorSession, SessionBody, In<typeof requests.operatorSignInSchema>>
      | Route<'/api/v1/admin/programs', ProgramBody, In<typeof programCreateSchema>>
      | Route<`${Program}/keys`, IssuedKeyBody, In<typeof requests.keyIssueSchema>>
      | Route<`${Program}/keys/${number}/rotate`, RotatedKeyBody, In<typeof requests.keyRotateSchema>>
      | Route<`${Program}/keys/${number}/retire`, RetiredKeyBody, In<typeof requests.keyRetireSchema>>
      | Route<`${Program}/partners`, PartnerCreatedBody, In<typeof partnerCreateSchema>>
      | Route<`${Program}/partners/${number}/invites`, PartnerInviteBody>
      | Route<`${Program}/partners/${number}/codes`, PartnerCodeBody, In<typeof partnerCodeCreateSchema>>
      | Route<`${Program}/partner-codes/${number}/disable`, PartnerCodeBody>
      | Route<`${Program}/partner-groups`, PartnerGroupBody, In<typeof partnerGroupCreateSchema>>
      | Route<`${Program}/rules/preview`, RulesPreviewBody, In<typeof requests.rulesPreviewSchema>>
      | Route<`${Program}/partners/${number}/payouts`, PayoutBody, In<typeof requests.openPayoutSchema>>
      | Route<`${Program}/commissions/${number}/${'approve' | 'release' | 'reject'}`, CommissionApprovedBody>
      | Route<`${Program}/commissions/${number}/reverse`, LeadReversalBody, In<typeof requests.leadReversalSchema>>
      | Route<`${Program}/commissions/${number}/pay`, PaidPayoutBody>
      | Route<`${Program}/commissions/review`, ReviewResultsBody, In<typeof requests.reviewCommissionsSchema>>
      | Route<`${Program}/payouts/${number}/pay`, PaidPayoutBody>
      | Route<`${Program}/payouts/${number}/confirm`, PaidPayoutBody>
      | Route<`${Program}/payouts/${number}/fail`, PaidPayoutBody, In<typeof requests.payoutFailSchema>>
      | Route<`${Program}/payout-runs`, PayoutRunBody, In<typeof requests.payoutRunSchema>>
      | Route<`${Program}/payout-runs/${number}/${'confirm' | 'transfers'}`, PayoutRunBody>
      | Route<`${Program}/webhook-events/replay`, ReplayBody, In<typeof requests.replaySchema>>
      | Route<`${Provider}/secrets`, ProviderSecretBody, In<typeof requests.addSecretSchema>>
      | Route<`${Provider}/secrets/${number}/expire`, ProviderSecretBody, In<typeof requests.expireSecretSchema>>
      | Route<`${Program}/event-endpoints`, EndpointWithSecretBody, In<typeof requests.endpointCreateSchema>>
      | Route<`${EventEndpoint}/rotate-secret`, EndpointWithSecretBody>
      | Route<`${EventEndpoint}/expire-old-secret`, EndpointBody>
      | Route<`${Program}/event-deliveries/${number}/replay`, DeliveryBody>
      | Route<`${Program}/staff`, StaffAddedBody, In<typeof staffAddSchema>>
      | Route<'/api/v1/admin/me/tokens', CreatedStaffTokenBody, In<typeof tokenCreateSchema>>
      | Route<`/api/v1/admin/me/tokens/${number}/revoke`, StaffTokenBody>
      | Route<'/api/v1/admin/me/totp', TotpStartBody>
      | Route<'/api/v1/admin/me/totp/confirm', TotpConfirmedBody, In<typeof totpConfirmSchema>>
      | Route<`/api/v1/dashboard/invites/${string}`, SessionBody, In<typeof requests.acceptInviteSchema>>
      | Route<'/api/v1/dashboard/password-reset', PasswordResetBody, In<typeof resetSchema>>
      | Route<`${Program}/applications/approve`, DecisionsBody, In<typeof approveSchema>>
      | Route<`${Program}/applications/reject`, DecisionsBody, In<typeof rejectSchema>>
      | ImportRoutes['POST'];
    PATCH:
      | Route<`${Program}/staff/${number}`, StaffMemberBody, In<typeof staffRoleSchema>>
      | Route<Program, ProgramBody, In<typeof programUpdateSchema>>
      | Route<EventEndpoint, EndpointBody, In<typeof requests.endpointPatchSchema>>
      | Route<`${Program}/partner-groups/${number}`, PartnerGroupBody, In<typeof partnerGroupUpdateSchema>>;
    PUT:
      | Route<Provider, ProviderConnectedBody, In<typeof requests.connectSchema>>
      | Route<`${Program}/partners/${number}/group`, PartnerCreatedBody, In<typeof partnerGroupAssignSchema>>
      | Route<`${Program}/application-form`, ApplicationFormBody, In<typeof applicationFormSchema>>
      | Route<`${Program}/email-settings`, EmailSettingsBody, In<typeof emailSettingsSchema>>;
    DELETE:
      | Route<OperatorSession, SignedOutBody>
      | Route<`${Provider}/secrets/${number}`, RemovedBody>
      | Route<`${Program}/staff/${number}`, StaffRemovedBody>;
  };
  partner: {
    GET:
      | Route<PartnerSession, SessionBody>
      | Route<`${Partner}/invites/${string}`, InviteDescriptionBody>
      | Route<`${Partner}/me`, PartnerProfileBody>
      | Route<Query<`${Partner}/stats`>, SeriesBody>
      | Route<Query<`${Partner}/commissions`>, PartnerCommissionsBody>
      | Route<`${Partner}/earnings`, PartnerEarningsBody>
      | Route<Query<`${Partner}/notifications`>, PartnerNotificationsBody>
      | Route<`${Partner}/payout-method`, PayoutMethodBody>
      | Route<`${Partner}/email-preferences`, EmailPrefsBody>;
    POST:
      | Route<PartnerSession, SessionBody, In<typeof requests.partnerSignInSchema>>
      | Route<`${Partner}/invites/${string}`, SessionBody, In<typeof requests.acceptInviteSchema>>
      | Route<`${Partner}/notifications/read`, UnreadCountBody, In<typeof requests.markReadSchema>>
      | Route<`${Partner}/payout-requests`, PartnerPayoutBody, In<typeof requests.payoutRequestSchema>>;
    PATCH: never;
    PUT:
      | Route<`${Partner}/payout-method`, PayoutMethodBody, In<typeof payoutMethodSchema>>
      | Route<`${Partner}/email-preferences`, EmailPrefsBody, In<typeof emailPrefsSchema>>;
    DELETE: Route<PartnerSession, SignedOutBody> | Route<`${Partner}/payout-method`, PayoutMethodBody>;
  };
};

/** The files a payout run is downloaded as (`format`), per rail: PayPal's two, Wise's one. */
export type PayoutFileFormat = 'paypal_csv' | 'paypal_json' | 'wise_csv';
/**
 * Paths the pages link to rather than fetch, by session: CSV and payout-file downloads (`GET`,
 * with the session cookie) and the webhook URL a provider is given (`POST`, by the provider).
 */
export type ApiLinks = {
  operator: {
    GET:
      | `${Program}/exports/${'commissions' | 'sales' | 'refunds' | 'payouts'}.csv`
      | `${Program}/payout-runs/${number}/file?format=${PayoutFileFormat}`
      | Query<`${Program}/audit/export`>
      | ImportLinks;
    POST: `/api/v1/webhooks/${WebhookProvider}/${number}`;
  };
  partner: { GET: `${Partner}/exports/${'commissions' | 'statement'}.csv`; POST: never };
};
export type Method = keyof ApiRoutes['operator'];
