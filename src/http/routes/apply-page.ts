import { randomBytes } from 'node:crypto';
import type { H3Event } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { readApplicationForm } from '../../core/applications/application-form.ts';
import { submitApplication } from '../../core/applications/submit-application.ts';
import { enforceClientLimit } from '../client-limit.ts';
import { readLimited } from '../read-json.ts';
import { defineOperation } from '../openapi/operation.ts';
import type { ApprovalLinks } from '../../core/applications/decide-applications.ts';
import { MAX_ROW_ID } from '../validate.ts';
import { publicOrigin } from '../../public-origin.ts';
import { demoPageEnabled } from './demo-page.ts';

/** The `programId` path parameter, or null when it is not a row id. */
export function programIdParam(event: H3Event): number | null {
  const raw = event.context.params?.programId ?? '';
  const id = Number(raw);
  return /^[1-9]\d{0,9}$/.test(raw) && id <= MAX_ROW_ID ? id : null;
}

/** Links of approval emails and answers: the public origin, the invite lifetime, whether the demo page is on. */
export function approvalLinks(ctx: RouteContext): ApprovalLinks {
  return {
    baseUrl: publicOrigin(ctx.config),
    inviteTtlMs: ctx.config.INVITE_TTL_HOURS * 3_600_000,
    demoPage: demoPageEnabled(ctx.config),
  };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
type Form = Awaited<ReturnType<typeof readApplicationForm>>;
type Values = Record<string, string>;

/**
 * `/apply/<program id>`: the program's public sign-up page (no script; a plain form posting back to
 * itself), branded with the program's name. Embeddable in the program's own site only
 * (`frame-ancestors`). GET shows the form; POST submits it and shows the outcome or the problems,
 * each beside its field, keeping what was typed.
 */
export function applyPageRoute(ctx: RouteContext) {
  return async (event: H3Event): Promise<Response> => {
    const programId = programIdParam(event);
    const form = programId ? await readApplicationForm(ctx.deps(), programId).catch(() => null) : null;
    if (!programId || !form?.enabled)
      return page(404, 'Not found', '<h1>Not found</h1><p>This program does not take applications.</p>', null);
    if (event.req.method !== 'POST') return page(200, `Apply to ${form.programName}`, formHtml(form, {}, {}), form);
    await enforceClientLimit(ctx, event, 'application');
    const bytes = await readLimited(event, ctx.config.BODY_LIMIT_BYTES);
    const values: Values = Object.fromEntries(new URLSearchParams(new TextDecoder().decode(bytes)));
    try {
      const answers = Object.fromEntries(form.fields.map((f) => [f.key, values[f.key] ?? '']));
      const r = await submitApplication(
        ctx.deps(),
        programId,
        { name: values.name ?? '', email: values.email ?? '', answers, acceptTerms: values.accept_terms === 'yes' },
        approvalLinks(ctx),
      );
      const done =
        r.status === 'approved'
          ? '<p>You are approved. We emailed you a link to choose your password and sign in to the partner portal.</p>'
          : '<p>Thank you. We will review your application and write to you by email.</p>';
      return page(201, 'Application received', `<h1>Application received</h1>${done}`, form);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'invalid_request' || !err.details.fields) throw err;
      const problems = err.details.fields as Values;
      return page(400, `Apply to ${form.programName}`, formHtml(form, values, problems), form);
    }
  };
}

function field(name: string, label: string, input: string, problem: string | undefined): string {
  const err = problem ? `<p class="problem" id="${name}-problem">${esc(problem)}</p>` : '';
  return `<div class="field"><label for="${name}">${esc(label)}</label>${input.replace('<INPUT', `<${problem ? `input aria-invalid="true" aria-describedby="${name}-problem"` : 'input'}`)}${err}</div>`;
}

function formHtml(form: Form, values: Values, problems: Values): string {
  const v = (k: string) => esc(values[k] ?? '');
  const inputs = [
    field(
      'name',
      'Your name',
      `<INPUT id="name" name="name" autocomplete="name" required value="${v('name')}">`,
      problems.name,
    ),
    field(
      'email',
      'Email',
      `<INPUT id="email" name="email" type="email" autocomplete="email" required value="${v('email')}">`,
      problems.email,
    ),
    ...form.fields.map((f) =>
      f.type === 'textarea'
        ? field(
            f.key,
            f.label + (f.required ? '' : ' (optional)'),
            `<textarea id="${esc(f.key)}" name="${esc(f.key)}"${f.required ? ' required' : ''}${problems[f.key] ? ` aria-invalid="true" aria-describedby="${esc(f.key)}-problem"` : ''}>${v(f.key)}</textarea>`,
            problems[f.key],
          )
        : field(
            f.key,
            f.label + (f.required ? '' : ' (optional)'),
            `<INPUT id="${esc(f.key)}" name="${esc(f.key)}" type="${f.type}"${f.required ? ' required' : ''} value="${v(f.key)}">`,
            problems[f.key],
          ),
    ),
  ];
  const terms = form.termsVersion
    ? `<h2>Program terms (version ${esc(form.termsVersion)})</h2><div class="terms" tabindex="0" role="region" aria-label="Program terms">${esc(form.termsText ?? '').replace(/\n/g, '<br>')}</div>` +
      field(
        'accept_terms',
        'I accept the program terms',
        `<INPUT id="accept_terms" name="accept_terms" type="checkbox" value="yes"${values.accept_terms === 'yes' ? ' checked' : ''}>`,
        problems.accept_terms,
      )
    : '';
  const summary = Object.keys(problems).length
    ? `<div class="problems" role="alert"><p>Please correct ${Object.keys(problems).length === 1 ? 'the answer' : 'the answers'} marked below.</p></div>`
    : '';
  return `<h1>Apply to the ${esc(form.programName)} partner program</h1>${form.intro ? `<p>${esc(form.intro)}</p>` : ''}${summary}
<form method="post" novalidate>${inputs.join('')}${terms}<button type="submit">Send application</button></form>`;
}

function page(status: number, title: string, body: string, form: Form | null): Response {
  const nonce = randomBytes(16).toString('base64');
  const ancestors = form?.programDomain ? `'self' https://${form.programDomain}` : "'self'";
  const style = `body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.field{margin:1rem 0}label{display:block;font-weight:600;margin-bottom:.25rem}input:not([type=checkbox]),textarea{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
.problem{color:#a00000;margin:.25rem 0}.problems{border:2px solid #a00000;padding:.5rem 1rem}.terms{max-height:12rem;overflow:auto;border:1px solid #767676;padding:.5rem}
button{padding:.6rem 1.2rem;font:inherit;background:#1f4fbf;color:#fff;border:0;border-radius:4px}`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style nonce="${nonce}">${style}</style></head><body><main>${body}</main></body></html>`;
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors ${ancestors}`,
    },
  });
}

const notFound = { description: 'No such program, or it takes no applications', contentType: 'text/html' };

export const applyPageOperations = (['get', 'post'] as const).map((method) =>
  defineOperation({
    method,
    path: '/apply/:programId',
    operationId: method === 'get' ? 'getApplyPage' : 'postApplyPage',
    tag: 'Service',
    security: [],
    summary: method === 'get' ? "The program's public application page" : 'Submit the application page (form post)',
    description:
      "HTML, no script. Off (404) until the program enables its application form. The POST takes `application/x-www-form-urlencoded` fields `name`, `email`, the form's field keys and `accept_terms=yes`; limited per client address (`APPLICATION_LIMIT_PER_MINUTE`).",
    responses:
      method === 'get'
        ? { 200: { description: 'The form', contentType: 'text/html' }, 404: notFound }
        : {
            201: { description: 'Received', contentType: 'text/html' },
            400: { description: 'The form again, each problem beside its field', contentType: 'text/html' },
            404: notFound,
          },
    errors: method === 'post' ? ['rate_limited', 'payload_too_large'] : [],
  }),
);
