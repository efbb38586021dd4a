import { randomUUID } from 'node:crypto';
import { DAY_MS, type CoreDeps } from '../deps.ts';
import type { ClickJob } from '../jobs/click-job.ts';
import { AppError } from '../shared/errors.ts';
import { Partner } from '../entities/partner.ts';
import { Click } from '../entities/click.ts';
import { hostMatchesDomain } from '../shared/host-matches-domain.ts';
import { findProgramSettings } from '../settings-cache.ts';
import { type ProgramSnapshot, type PartnerRef } from '../ports.ts';
import { typedSql } from '../db/sql.ts';
import { settleEach, type Settled } from '../shared/micro-batch.ts';

export type ClickResult = { clickId: string; partnerCode: string; cookieWindowDays: number; programId: number };

/**
 * Records a partner-link click. With `existingClickId` of the same program the click is
 * overwritten (new partner, new age): last-partner attribution. Under the program's
 * `first_click` model a click younger than the cookie duration is kept instead, and the answer
 * names its partner.
 * @throws AppError `not_found` for an unknown partner code; `invalid_request` when the affiliate
 * URL's host does not match the program's domain.
 */
export async function recordClick(deps: CoreDeps, job: ClickJob): Promise<ClickResult> {
  const [r] = await recordClicks(deps, [job]);
  if (!r?.ok) throw r?.error;
  return r.value;
}

/**
 * Records several clicks (the track worker batches the click jobs it holds), each answered on its
 * own as `recordClick` would: one read of the partners, then the new clicks in one multi-row
 * insert (their ids are drawn here, before it). Overwrites of an existing click are one update
 * each. When the insert fails (a value PostgreSQL refuses in one of them), every new click is
 * inserted again on its own, so that only the offending one fails.
 */
export async function recordClicks(deps: CoreDeps, jobs: ClickJob[]): Promise<Array<Settled<ClickResult>>> {
  const em = deps.em;
  const partnerByCode = await findPartners(deps, [...new Set(jobs.map((j) => j.partnerCode))]);
  const programs = new Map<number, Promise<ProgramSnapshot>>();
  const programOf = (id: number) => {
    let p = programs.get(id);
    if (!p) {
      p = findProgramSettings(deps, id);
      programs.set(id, p);
    }
    return p;
  };

  type Planned = { job: ClickJob; row: ClickRow; result: ClickResult };
  const planned = await settleEach(jobs, async (job): Promise<Planned> => {
    const partner = partnerByCode.get(job.partnerCode);
    if (!partner)
      throw new AppError('not_found', `No partner with referral code "${job.partnerCode}"`, { field: 'aff' });
    const program = await programOf(partner.program);
    if (program.domain && !hostMatchesDomain(new URL(job.affiliateUrl).hostname, program.domain)) {
      throw new AppError('invalid_request', 'affiliate_url host does not match the program domain', {
        field: 'affiliate_url',
        program_domain: program.domain,
      });
    }
    const row = clickRow(job, partner.id, program.id);
    return {
      job,
      row,
      result: {
        clickId: row.id,
        partnerCode: partner.code,
        cookieWindowDays: program.cookieDurationDays,
        programId: program.id,
      },
    };
  });

  // Overwrites first (rare: a returning visitor with a click cookie); one that names no click of
  // this program records a new click instead.
  const out: Array<Settled<ClickResult>> = await Promise.all(
    planned.map(async (p): Promise<Settled<ClickResult>> => {
      if (!p.ok || !p.value.job.existingClickId) return p.ok ? { ok: true, value: p.value.result } : p;
      const { job, row, result } = p.value;
      try {
        const program = await programOf(row.program);
        const firstClick = program.attributionModel === 'first_click';
        const liveSince = new Date(row.clickedAt.getTime() - program.cookieDurationDays * DAY_MS);
        const updated = await em.nativeUpdate(
          Click,
          { id: job.existingClickId, program: row.program, ...(firstClick ? { clickedAt: { $lt: liveSince } } : {}) },
          {
            partner: row.partner,
            affiliateUrl: row.affiliateUrl,
            pageUrl: row.pageUrl,
            referrerUrl: row.referrerUrl,
            visitorId: row.visitorId,
            clickedAt: row.clickedAt,
          },
        );
        if (updated > 0) return { ok: true, value: { ...result, clickId: job.existingClickId as string } };
        const kept = firstClick ? await findKeptClick(em, job.existingClickId as string, row.program) : null;
        if (kept) return { ok: true, value: { ...result, clickId: kept.clickId, partnerCode: kept.partnerCode } };
        return { ok: true, value: result };
      } catch (error) {
        return { ok: false, error };
      }
    }),
  );
  const inserts = planned.flatMap((p, i) => {
    const r = out[i];
    if (!p.ok || !r?.ok || r.value.clickId !== p.value.row.id) return [];
    return [{ i, row: p.value.row }];
  });
  if (inserts.length === 1) {
    const [only] = inserts as [{ i: number; row: ClickRow }];
    try {
      await insertClickRows(em, [only.row]);
    } catch (error) {
      out[only.i] = { ok: false, error };
    }
  } else if (inserts.length > 1) {
    try {
      await insertClickRows(
        em,
        inserts.map((x) => x.row),
      );
    } catch {
      // Nothing of the statement was written: each click on its own, so only a bad one fails.
      await Promise.all(
        inserts.map(async (x) => {
          try {
            await insertClickRows(em, [x.row]);
          } catch (error) {
            out[x.i] = { ok: false, error };
          }
        }),
      );
    }
  }
  return out;
}

/** A first click that a later partner link did not take over (`first_click`), with its partner's code. */
async function findKeptClick(
  em: CoreDeps['em'],
  clickId: string,
  programId: number,
): Promise<{ clickId: string; partnerCode: string } | null> {
  const click = await em.findOne(Click, { id: clickId, program: programId }, { fields: ['partner'] });
  if (!click) return null;
  const partner = await em.findOneOrFail(Partner, { id: click.partner }, { fields: ['code'] });
  return { clickId, partnerCode: partner.code };
}

/**
 * The partners of these referral codes. A partner's code and program never change and partners
 * are not deleted, so a found partner is remembered (`CoreCaches.partners`) for SETTINGS_CACHE_MS (the bound of the other
 * settings caches) and the clicks of a popular link skip the read; an unknown code is never
 * remembered (a partner created a moment later is found at once).
 */
async function findPartners(deps: CoreDeps, codes: string[]): Promise<Map<string, PartnerRef>> {
  const { em, caches } = deps;
  const found = new Map<string, PartnerRef>();
  const missing: string[] = [];
  for (const code of codes) {
    const hit = caches.partners.get(code);
    if (hit) found.set(code, hit);
    else missing.push(code);
  }
  if (!missing.length) return found;
  const partners = await em.find(Partner, { code: { $in: missing } }, { fields: ['id', 'code', 'program'] });
  for (const p of partners) {
    const ref = { id: p.id, code: p.code, program: p.program };
    caches.partners.set(p.code, ref);
    found.set(p.code, ref);
  }
  return found;
}

/**
 * New clicks in one plain statement, not `em.insertMany`: the ORM's per-entity preparation was
 * about a third of the insert's CPU (10-15 µs per click, measured on a batch of 16).
 */
async function insertClickRows(em: CoreDeps['em'], rows: ClickRow[]): Promise<void> {
  await typedSql(em)
    .insertInto('click')
    .values(
      rows.map((r) => ({
        id: r.id,
        program_id: r.program,
        partner_id: r.partner,
        affiliate_url: r.affiliateUrl,
        page_url: r.pageUrl,
        referrer_url: r.referrerUrl,
        visitor_id: r.visitorId,
        clicked_at: r.clickedAt,
        created_at: r.createdAt,
      })),
    )
    .execute();
}

type ClickRow = {
  id: string;
  program: number;
  partner: number;
  affiliateUrl: string;
  pageUrl: string | null;
  referrerUrl: string | null;
  visitorId: string | null;
  clickedAt: Date;
  createdAt: Date;
};

/** A new click's row; its id (the `tracker_click_id` cookie) is drawn here, before the insert. */
function clickRow(job: ClickJob, partnerId: number, programId: number): ClickRow {
  const now = new Date(job.receivedAt);
  return {
    id: randomUUID(),
    program: programId,
    partner: partnerId,
    affiliateUrl: job.affiliateUrl,
    pageUrl: job.pageUrl,
    referrerUrl: job.referrerUrl,
    visitorId: job.visitorId,
    clickedAt: now,
    createdAt: now,
  };
}
