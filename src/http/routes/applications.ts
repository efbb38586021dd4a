import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import type { RouteContext } from '../http-context.ts';
import { submitApplication } from '../../core/applications/submit-application.ts';
import { unsubscribeByToken } from '../../core/email/email-prefs.ts';
import { AppError } from '../../core/shared/errors.ts';
import { enforceClientLimit } from '../client-limit.ts';
import { readJson } from '../read-json.ts';
import { json, route } from '../route.ts';
import { validate } from '../validate.ts';
import { defineOperation } from '../openapi/operation.ts';
import { applyPageRoute, approvalLinks, programIdParam } from './apply-page.ts';

export const applicationSubmitSchema = z.strictObject({
  name: z.string().max(1000),
  email: z.string().max(1000),
  answers: z.record(z.string().max(100), z.string().max(5000)).default({}),
  accept_terms: z.boolean().default(false),
});
const submitted = z.strictObject({
  application_id: z.number().int(),
  status: z.enum(['pending', 'approved']),
});

/**
 * The keyless routes of applications and email: the public page (apply-page.ts), its JSON twin for
 * a merchant's own form, and the one-click unsubscribe (RFC 8058: a POST to the link in the
 * `List-Unsubscribe` header; a GET shows a button, so a mail scanner following links unsubscribes nobody).
 */
export function registerApplicationRoutes(app: H3, ctx: RouteContext): void {
  const page = applyPageRoute(ctx);
  app.get('/apply/:programId', page);
  app.post('/apply/:programId', page);
  app.post(
    '/api/v1/programs/:programId/applications',
    route(async (event) => {
      await enforceClientLimit(ctx, event, 'application');
      const programId = programIdParam(event);
      const body = validate(applicationSubmitSchema, await readJson(event, ctx.config.BODY_LIMIT_BYTES));
      if (!programId) throw new AppError('not_found', 'No such program');
      const r = await submitApplication(
        ctx.deps(),
        programId,
        { name: body.name, email: body.email, answers: body.answers, acceptTerms: body.accept_terms },
        approvalLinks(ctx),
      );
      return json({ application_id: r.applicationId, status: r.status } satisfies z.infer<typeof submitted>, 201);
    }),
  );
  const unsubscribe = async (event: H3Event): Promise<Response> => {
    await enforceClientLimit(ctx, event, 'unsubscribe');
    const token = event.url.searchParams.get('token') ?? '';
    if (event.req.method === 'POST') {
      const ok = await unsubscribeByToken(ctx.deps(), token).then(
        () => true,
        () => false,
      );
      return html(
        ok ? 200 : 404,
        ok
          ? '<h1>Unsubscribed</h1><p>You will get no more digests, payout or statement emails.</p>'
          : '<h1>Not found</h1><p>This unsubscribe link is not valid.</p>',
      );
    }
    return html(
      200,
      `<h1>Unsubscribe</h1><form method="post" action="?token=${encodeURIComponent(token)}"><button type="submit">Unsubscribe from partner emails</button></form>`,
    );
  };
  app.get('/email/unsubscribe', unsubscribe);
  app.post('/email/unsubscribe', unsubscribe);
}

function html(status: number, body: string): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Email preferences</title></head><body><main>${body}</main></body></html>`,
    {
      status,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'content-security-policy': "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
      },
    },
  );
}

export const applicationOperations = [
  defineOperation({
    method: 'post',
    path: '/api/v1/programs/:programId/applications',
    operationId: 'submitApplication',
    tag: 'Service',
    security: [],
    summary: 'Apply to a program (JSON; no key)',
    description:
      "What the public page submits, for a merchant's own form. `answers`: by the form's field keys. Problems come back as 400 `invalid_request` with `details.fields` (each field's problem in plain words). Limited per client address (`APPLICATION_LIMIT_PER_MINUTE`).",
    params: { programId: z.number().int().positive() },
    body: applicationSubmitSchema,
    responses: { 201: { description: 'Received (or approved at once with auto-approval)', schema: submitted } },
    errors: ['invalid_request', 'not_found', 'rate_limited'],
  }),
  ...(['get', 'post'] as const).map((method) =>
    defineOperation({
      method,
      path: '/email/unsubscribe',
      operationId: method === 'get' ? 'getUnsubscribePage' : 'unsubscribe',
      tag: 'Service',
      security: [],
      summary: method === 'get' ? 'The unsubscribe page (a button)' : 'One-click unsubscribe (RFC 8058)',
      description: 'Query `token`: the signed token of the `List-Unsubscribe` link.',
      responses:
        method === 'get'
          ? { 200: { description: 'The page', contentType: 'text/html' } }
          : {
              200: { description: 'Unsubscribed', contentType: 'text/html' },
              404: { description: 'The token is not valid', contentType: 'text/html' },
            },
      errors: ['rate_limited'],
    }),
  ),
];
