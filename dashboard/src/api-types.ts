// The response body of every API route the dashboard and the portal call, by session, method and
// path. Each body is the server's own type: the zod schema its OpenAPI entry documents (and the
// contract test checks responses against) or the type its handler is checked against
// (src/http/wire/responses.ts, program-config.ts, records.ts). Type-only imports: nothing of the
// server reaches the bundle, and those files import no Node modules (this config has no Node types).

import type { ListableKind } from '../../src/core/reporting/listable.ts';
import type { WebhookProvider, OutboundEventType } from '../../src/core/shared/vocabulary.ts';
import type { ProgramBody, ProgramListBody } from '../../src/http/wire/program-config.ts';
import type { ListRowWire, RecordListWire } from '../../src/http/wire/records.ts';
import type {
  DeliveriesBody,
  DeliveryBody,
  EndpointBody,
  EndpointsBody,
  EndpointWithSecretBody,
} from '../../src/http/wire/event-endpoints.ts';
import type { PayoutMethodBody, PayoutRunBody } from '../../src/http/wire/payouts.ts';
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
  StatementBody,
  UnreadCountBody,
  WebhookEventBody,
} from '../../src/http/wire/responses.ts';

// What the pages hold: bodies, list rows, programs.
export type { ProgramWire } from '../../src/http/wire/program-config.ts';
export type { ProviderSecretWire, SessionBody } from '../../src/http/wire/responses.ts';
/** An outbound event endpoint and one of its deliveries, as listed. */
export type EventEndpointWire = EndpointsBody['endpoints'][number];
export type EventDeliveryWire = DeliveriesBody['deliveries'][number];
export type { EndpointWithSecretBody, OutboundEventType, PayoutMethodBody, PayoutRunBody };
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
  StatementBody,
  WebhookEventBody,
  WebhookProvider,
};

/** A path pattern (`${number}` for an id) and the body its route answers with. */
type Route<Path extends string, Body> = { path: Path; body: Body };
/** The path with or without a query string. */
type Query<P extends string> = P | `${P}?${string}`;

type Program = `/api/v1/admin/programs/${number}`;
type EventEndpoint = `${Program}/event-endpoints/${number}`;
type Provider = `${Program}/providers/${WebhookProvider}`;
/** `GET /programs/:id/:list`, one route per list. */
type ListRoutes = { [K in ListableKind]: Route<Query<`${Program}/${K}`>, RecordListWire<K>> }[ListableKind];

type Partner = '/api/v1/partner';

/** The routes of each session kind by method (the session routes themselves: api.ts). */
export type ApiRoutes = {
  operator: {
    GET:
      | Route<'/api/v1/admin/programs', ProgramListBody>
      | Route<Program, ProgramBody>
      | Route<Query<`${Program}/stats`>, SeriesBody>
      | ListRoutes
      | Route<`${Program}/partners/${number}/statement`, StatementBody>
      | Route<`${Program}/webhook-events/${number}`, WebhookEventBody>
      | Route<`${Provider}/secrets`, ProviderSecretsBody>
      | Route<`${Program}/event-endpoints`, EndpointsBody>
      | Route<Query<`${EventEndpoint}/deliveries`>, DeliveriesBody>
      | Route<`${Program}/payout-runs/${number}`, PayoutRunBody>;
    POST:
      | Route<'/api/v1/admin/programs', ProgramBody>
      | Route<`${Program}/keys`, IssuedKeyBody>
      | Route<`${Program}/keys/${number}/rotate`, RotatedKeyBody>
      | Route<`${Program}/keys/${number}/retire`, RetiredKeyBody>
      | Route<`${Program}/partners`, PartnerCreatedBody>
      | Route<`${Program}/partners/${number}/invites`, PartnerInviteBody>
      | Route<`${Program}/partners/${number}/codes`, PartnerCodeBody>
      | Route<`${Program}/partner-codes/${number}/disable`, PartnerCodeBody>
      | Route<`${Program}/partner-groups`, PartnerGroupBody>
      | Route<`${Program}/rules/preview`, RulesPreviewBody>
      | Route<`${Program}/partners/${number}/payouts`, PayoutBody>
      | Route<`${Program}/commissions/${number}/${'approve' | 'release' | 'reject'}`, CommissionApprovedBody>
      | Route<`${Program}/commissions/${number}/reverse`, LeadReversalBody>
      | Route<`${Program}/commissions/${number}/pay`, PaidPayoutBody>
      | Route<`${Program}/payouts/${number}/pay`, PaidPayoutBody>
      | Route<`${Program}/payouts/${number}/${'confirm' | 'fail'}`, PaidPayoutBody>
      | Route<`${Program}/payout-runs`, PayoutRunBody>
      | Route<`${Program}/payout-runs/${number}/${'confirm' | 'transfers'}`, PayoutRunBody>
      | Route<`${Program}/webhook-events/replay`, ReplayBody>
      | Route<`${Provider}/secrets`, ProviderSecretBody>
      | Route<`${Provider}/secrets/${number}/expire`, ProviderSecretBody>
      | Route<`${Program}/event-endpoints`, EndpointWithSecretBody>
      | Route<`${EventEndpoint}/rotate-secret`, EndpointWithSecretBody>
      | Route<`${EventEndpoint}/expire-old-secret`, EndpointBody>
      | Route<`${Program}/event-deliveries/${number}/replay`, DeliveryBody>;
    PATCH: Route<Program, ProgramBody> | Route<EventEndpoint, EndpointBody>;
    PUT: Route<Provider, ProviderConnectedBody> | Route<`${Program}/partners/${number}/group`, PartnerCreatedBody>;
    DELETE: Route<`${Provider}/secrets/${number}`, RemovedBody>;
  };
  partner: {
    GET:
      | Route<`${Partner}/invites/${string}`, InviteDescriptionBody>
      | Route<`${Partner}/me`, PartnerProfileBody>
      | Route<Query<`${Partner}/stats`>, SeriesBody>
      | Route<Query<`${Partner}/commissions`>, PartnerCommissionsBody>
      | Route<`${Partner}/earnings`, PartnerEarningsBody>
      | Route<Query<`${Partner}/notifications`>, PartnerNotificationsBody>
      | Route<`${Partner}/payout-method`, PayoutMethodBody>;
    POST: Route<`${Partner}/notifications/read`, UnreadCountBody>;
    PATCH: never;
    PUT: Route<`${Partner}/payout-method`, PayoutMethodBody>;
    DELETE: Route<`${Partner}/payout-method`, PayoutMethodBody>;
  };
};
export type Method = keyof ApiRoutes['operator'];

/** The paths a set of routes answers. */
export type PathOf<R> = R extends Route<infer P, unknown> ? P : never;
/** The body of the route a path (or each of a union of paths) matches. */
export type BodyOf<R, P extends string> = P extends unknown
  ? R extends Route<infer Path, infer Body>
    ? P extends Path
      ? Body
      : never
    : never
  : never;
