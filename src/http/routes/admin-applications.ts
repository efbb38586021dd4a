import type { H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { readApplicationForm, updateApplicationForm } from '../../core/applications/application-form.ts';
import { approveApplications, rejectApplications, type Decision } from '../../core/applications/decide-applications.ts';
import { listApplications } from '../../core/applications/list-applications.ts';
import type { IPartnerApplication } from '../../core/entities/partner-application.ts';
import { readProgramEmailSettings, updateProgramEmailSettings } from '../../core/email/program-email-settings.ts';
import { enqueueEventDeliveries } from '../../queue/enqueue-events.ts';
import { validate } from '../validate.ts';
import {
  applicationFormSchema,
  applicationWire,
  approveSchema,
  decisionsBody,
  decisionWire,
  emailSettingsBody,
  emailSettingsSchema,
  formBody,
  listBody,
  listQuery,
  rejectSchema,
} from '../wire/applications.ts';
import { adminOperation } from '../openapi/admin-operation.ts';
import type { AdminHelpers } from './admin-helpers.ts';
import { approvalLinks } from './apply-page.ts';
import { publicOrigin } from '../../public-origin.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const applicationToWire = (a: IPartnerApplication): z.infer<typeof applicationWire> => ({
  id: a.id,
  name: a.name,
  email: a.email,
  answers: a.answers,
  terms_version: a.termsVersion ?? null,
  terms_accepted_at: iso(a.termsAcceptedAt),
  status: a.status,
  reason: a.reason ?? null,
  partner_id: a.partner ?? null,
  created_at: a.createdAt.toISOString(),
  decided_at: iso(a.decidedAt),
});
const decisionToWire = (d: Decision): z.infer<typeof decisionWire> =>
  d.outcome === 'approved'
    ? {
        application_id: d.applicationId,
        outcome: d.outcome,
        partner_id: d.partnerId,
        partner_code: d.partnerCode,
        ...(d.referralLink ? { referral_link: d.referralLink } : {}),
        invite_url: d.inviteUrl,
      }
    : d.outcome === 'skipped'
      ? { application_id: d.applicationId, outcome: d.outcome, status: d.status }
      : { application_id: d.applicationId, outcome: d.outcome };

/** The application form, the approval queue (approve / reject, in bulk) and the program's email settings. */
export function registerApplicationAdminRoutes(ctx: RouteContext, { on, num, body }: AdminHelpers): void {
  const form = async (e: H3Event, f: Awaited<ReturnType<typeof readApplicationForm>>) =>
    ({
      enabled: f.enabled,
      intro: f.intro,
      fields: f.fields,
      terms_text: f.termsText,
      terms_version: f.termsVersion,
      auto_approve: f.autoApprove,
      page_url: `${publicOrigin(ctx.config)}/apply/${num(e, 'id')}`,
    }) satisfies z.infer<typeof formBody>;
  on('get', '/programs/:id/application-form', async (e) =>
    form(e, await readApplicationForm(ctx.deps(), num(e, 'id'))),
  );
  on(
    'put',
    '/programs/:id/application-form',
    async (e) => {
      const b = validate(applicationFormSchema, await body(e));
      const saved = await updateApplicationForm(ctx.deps(), num(e, 'id'), {
        enabled: b.enabled,
        intro: b.intro,
        fields: b.fields,
        termsText: b.terms_text,
        termsVersion: b.terms_version,
        autoApprove: b.auto_approve,
      });
      return form(e, saved);
    },
    async (e) => form(e, await readApplicationForm(ctx.deps(), num(e, 'id'))),
  );
  on('get', '/programs/:id/applications', async (e) => {
    const q = validate(listQuery, Object.fromEntries(e.url.searchParams));
    const r = await listApplications(ctx.deps(), num(e, 'id'), q);
    return { total: r.total, applications: r.applications.map(applicationToWire) } satisfies z.infer<typeof listBody>;
  });
  on('post', '/programs/:id/applications/approve', async (e) => {
    const { ids } = validate(approveSchema, await body(e));
    const results = await approveApplications(ctx.deps(), num(e, 'id'), ids, approvalLinks(ctx));
    await enqueueEventDeliveries(
      ctx,
      results.flatMap((r) => (r.outcome === 'approved' ? r.deliveryIds : [])),
    );
    return { results: results.map(decisionToWire) } satisfies z.infer<typeof decisionsBody>;
  });
  on('post', '/programs/:id/applications/reject', async (e) => {
    const { ids, reason } = validate(rejectSchema, await body(e));
    const results = await rejectApplications(ctx.deps(), num(e, 'id'), ids, reason);
    return { results: results.map(decisionToWire) } satisfies z.infer<typeof decisionsBody>;
  });
  const settings = (s: { senderName: string | null; replyTo: string | null }) =>
    ({
      sender_name: s.senderName,
      reply_to: s.replyTo,
      smtp_enabled: !!ctx.config.SMTP_URL,
    }) satisfies z.infer<typeof emailSettingsBody>;
  on('get', '/programs/:id/email-settings', async (e) =>
    settings(await readProgramEmailSettings(ctx.deps(), num(e, 'id'))),
  );
  on(
    'put',
    '/programs/:id/email-settings',
    async (e) => {
      const b = validate(emailSettingsSchema, await body(e));
      return settings(
        await updateProgramEmailSettings(ctx.deps(), num(e, 'id'), { senderName: b.sender_name, replyTo: b.reply_to }),
      );
    },
    async (e) => settings(await readProgramEmailSettings(ctx.deps(), num(e, 'id'))),
  );
}

const id = z.number().int().positive();
const op = (
  method: 'get' | 'put' | 'post',
  path: string,
  operationId: string,
  summary: string,
  rest: { body?: z.ZodType; query?: z.ZodObject; schema: z.ZodType; description?: string },
) =>
  adminOperation(method, path, operationId, summary, {
    params: { id },
    ...(rest.body ? { body: rest.body } : {}),
    ...(rest.query ? { query: rest.query } : {}),
    ...(rest.description ? { description: rest.description } : {}),
    errors: ['not_found', ...(rest.body || rest.query ? (['invalid_request'] as const) : [])],
    responses: { 200: { description: 'OK', schema: rest.schema } },
  });

export const applicationAdminOperations = [
  op('get', '/programs/:id/application-form', 'getApplicationForm', 'The public application form', {
    schema: formBody,
  }),
  op('put', '/programs/:id/application-form', 'updateApplicationForm', 'Change the application form', {
    body: applicationFormSchema,
    schema: formBody,
    description:
      'Terms need a version, and changed terms a new one: each applicant records the version they accepted. `page_url` is the public page to link or embed.',
  }),
  op('get', '/programs/:id/applications', 'listApplications', 'Applications, newest first', {
    query: listQuery,
    schema: listBody,
  }),
  op('post', '/programs/:id/applications/approve', 'approveApplications', 'Approve applications', {
    body: approveSchema,
    schema: decisionsBody,
    description:
      'Each pending one becomes a partner (with the terms version and time accepted) and gets a portal invite, emailed with the referral link when email is on. `invite_url` is shown once. Others are `skipped`.',
  }),
  op('post', '/programs/:id/applications/reject', 'rejectApplications', 'Reject applications with a reason', {
    body: rejectSchema,
    schema: decisionsBody,
    description: 'The reason is emailed to each applicant when email is on.',
  }),
  op('get', '/programs/:id/email-settings', 'getEmailSettings', "The program's email sender settings", {
    schema: emailSettingsBody,
  }),
  op('put', '/programs/:id/email-settings', 'updateEmailSettings', 'Change the sender name and reply-to', {
    body: emailSettingsSchema,
    schema: emailSettingsBody,
  }),
];
