import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { CoreDeps } from '../deps.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import { PartnerApplication } from '../entities/partner-application.ts';
import { isDisposableEmail } from '../rewards/fraud-rules.ts';
import { queueEmail } from '../email/queue-email.ts';
import { readApplicationForm, type FormSettings } from './application-form.ts';
import { approveApplications, type ApprovalLinks, type Decision } from './decide-applications.ts';

export type ApplicationInput = {
  name: string;
  email: string;
  answers: Record<string, string>;
  acceptTerms: boolean;
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Every problem of the input, by field, in plain words (empty: none). */
export function checkApplication(form: FormSettings, input: ApplicationInput): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!input.name.trim()) problems.name = 'Please enter your name.';
  else if (input.name.trim().length > 200) problems.name = 'Please shorten your name to 200 characters.';
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 254)
    problems.email = 'Please enter a valid email address, like name@example.com.';
  else if (isDisposableEmail(email))
    problems.email = 'Addresses of disposable mail services are not accepted; please use your usual address.';
  for (const f of form.fields) {
    const v = (input.answers[f.key] ?? '').trim();
    if (!v) {
      if (f.required) problems[f.key] = `Please answer "${f.label}".`;
    } else if (v.length > 2000) problems[f.key] = `Please shorten "${f.label}" to 2000 characters.`;
    else if (f.type === 'url' && !/^https?:\/\/[^\s/]+\.[^\s]+$/i.test(v))
      problems[f.key] = `"${f.label}" must be a web address starting with https://.`;
  }
  if (form.termsVersion && !input.acceptTerms) problems.accept_terms = 'Please accept the program terms to apply.';
  return problems;
}

/**
 * Records an application to a program whose form is on, with the terms version accepted and
 * when; the applicant is emailed that it arrived, or, with auto-approval, approved at once.
 * @throws AppError `not_found` (no program, or its form is off), `invalid_request` (with
 * `details.fields`: each problem by field, in plain words).
 */
export async function submitApplication(
  deps: CoreDeps,
  programId: number,
  input: ApplicationInput,
  links: ApprovalLinks,
): Promise<{ applicationId: number; status: 'pending' | 'approved'; decision: Decision | null }> {
  const form = await readApplicationForm(deps, programId);
  if (!form.enabled) throw new AppError('not_found', 'This program does not take applications');
  const problems = checkApplication(form, input);
  const email = input.email.trim().toLowerCase();
  if (!problems.email) {
    const taken =
      (await deps.em.count(PartnerApplication, { program: programId, email })) ||
      (await deps.em.count(Partner, { program: programId, email }));
    if (taken) problems.email = 'An application with this email address was already received.';
  }
  if (Object.keys(problems).length)
    throw new AppError('invalid_request', Object.values(problems).join(' '), { fields: problems });
  const answers = Object.fromEntries(
    form.fields.flatMap((f) => (input.answers[f.key]?.trim() ? [[f.key, input.answers[f.key]!.trim()]] : [])),
  );
  const applicationId = await writeApplication(deps, programId, form, { name: input.name.trim(), email, answers });
  if (!form.autoApprove) return { applicationId, status: 'pending', decision: null };
  const [decision] = await approveApplications(deps, programId, [applicationId], links);
  return { applicationId, status: 'approved', decision: decision! };
}

/** The application row and its "received" email, in one transaction; a concurrent twin is refused in plain words. */
async function writeApplication(
  deps: CoreDeps,
  programId: number,
  form: FormSettings,
  input: { name: string; email: string; answers: Record<string, string> },
): Promise<number> {
  const { name, email, answers } = input;
  const now = deps.clock();
  return deps.em
    .transactional(async (em) => {
      const app = em.create(PartnerApplication, {
        program: programId,
        name,
        email,
        answers,
        termsVersion: form.termsVersion,
        termsAcceptedAt: form.termsVersion ? now : null,
        createdAt: now,
      });
      await em.flush();
      if (!form.autoApprove)
        await queueEmail(
          { ...deps, em },
          {
            programId,
            dedupeKey: `application_received:${app.id}`,
            recipient: { to: email, name: app.name },
            data: { kind: 'application_received' },
          },
        );
      return app.id;
    })
    .catch((err: unknown) => {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
      const problem = 'An application with this email address was already received.';
      throw new AppError('invalid_request', problem, { fields: { email: problem } });
    });
}
