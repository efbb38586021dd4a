import type { H3, H3Event } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { readEmailPrefs, updateEmailPrefs, type EmailPrefs } from '../../core/email/email-prefs.ts';
import { emailPrefsSchema, prefsBody, type EmailPrefsBody } from '../wire/applications.ts';
import { readJson } from '../read-json.ts';
import { route } from '../route.ts';
import { validate } from '../validate.ts';
import { requireSession } from '../session-auth.ts';
import { defineOperation } from '../openapi/operation.ts';

const toWire = (p: EmailPrefs): EmailPrefsBody => ({
  commission_digest: p.commissionDigest,
  payout_emails: p.payoutEmails,
  statement_emails: p.statementEmails,
  unsubscribed: p.unsubscribed,
});

/** The signed-in partner's email choices (digest daily, weekly or off; payout and statement emails). */
export function registerPartnerEmailPrefsRoutes(app: H3, ctx: RouteContext): void {
  const path = '/api/v1/partner/email-preferences';
  const partner = [requireSession(ctx, 'partner')];
  const partnerId = (e: H3Event) => e.context.session!.partnerId as number;
  app.get(
    path,
    route(partner, async (e) => toWire(await readEmailPrefs(ctx.deps(), partnerId(e)))),
  );
  app.put(
    path,
    route(partner, async (e) => {
      const b = validate(emailPrefsSchema, await readJson(e, ctx.config.BODY_LIMIT_BYTES));
      const saved = await updateEmailPrefs(ctx.deps(), partnerId(e), {
        commissionDigest: b.commission_digest,
        payoutEmails: b.payout_emails,
        statementEmails: b.statement_emails,
        unsubscribed: b.unsubscribed,
      });
      return toWire(saved);
    }),
  );
}

export const partnerEmailPrefsOperations = (['get', 'put'] as const).map((method) =>
  defineOperation({
    method,
    path: '/api/v1/partner/email-preferences',
    operationId: method === 'get' ? 'getEmailPreferences' : 'updateEmailPreferences',
    summary: method === 'get' ? "The partner's email choices" : "Change the partner's email choices",
    tag: 'Partner',
    security: ['partnerSession'],
    ...(method === 'put' ? { body: emailPrefsSchema } : {}),
    description:
      '`unsubscribed` (the one-click unsubscribe) stops digests, payout and statement emails; account emails (invites, application decisions) still go.',
    responses: { 200: { description: 'The choices', schema: prefsBody } },
    errors: method === 'put' ? ['unauthorized', 'forbidden', 'invalid_request', 'not_found'] : ['unauthorized'],
  }),
);
