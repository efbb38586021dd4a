import { randomUUID } from 'node:crypto';
import type { CoreDeps } from './deps.ts';
import type { ClickJob } from './jobs/click-job.ts';
import { AppError } from './errors.ts';
import { Partner } from './entities/partner.ts';
import { Program } from './entities/program.ts';
import { Click } from './entities/click.ts';
import { hostMatchesDomain } from './host-matches-domain.ts';
import { settingsCache } from './settings-cache.ts';

export type ClickResult = { clickId: string; partnerCode: string; cookieWindowDays: number; programId: number };

/**
 * Records a partner-link click. With `existingClickId` of the same program the click is
 * overwritten (new partner, new age): last-partner attribution.
 * @throws AppError `not_found` for an unknown partner code; `invalid_request` when the affiliate
 * URL's host does not match the program's domain.
 */
export async function recordClick(deps: CoreDeps, job: ClickJob): Promise<ClickResult> {
  const em = deps.em;
  const partner = await em.findOne(Partner, { code: job.partnerCode });
  if (!partner) throw new AppError('not_found', `No partner with referral code "${job.partnerCode}"`, { field: 'aff' });
  const program = await em.findOneOrFail(
    Program,
    { id: partner.program },
    { cache: settingsCache.program(partner.program) },
  );
  if (program.domain && !hostMatchesDomain(new URL(job.affiliateUrl).hostname, program.domain)) {
    throw new AppError('invalid_request', 'affiliate_url host does not match the program domain', {
      field: 'affiliate_url',
      program_domain: program.domain,
    });
  }
  const now = new Date(job.receivedAt);
  const fields = {
    partner: partner.id,
    affiliateUrl: job.affiliateUrl,
    pageUrl: job.pageUrl,
    referrerUrl: job.referrerUrl,
    visitorId: job.visitorId,
    clickedAt: now,
  };
  let click = job.existingClickId ? await em.findOne(Click, { id: job.existingClickId, program: program.id }) : null;
  if (click) em.assign(click, fields);
  else click = em.create(Click, { id: randomUUID(), program: program.id, ...fields, createdAt: now });
  await em.flush();
  return {
    clickId: click.id,
    partnerCode: partner.code,
    cookieWindowDays: program.cookieDurationDays,
    programId: program.id,
  };
}
