/**
 * The partner portal's home page (dashboard/src/pages/portal/Home.vue) as the partner with the most
 * rows, signed in through an invite as in test/portal: each of its five calls, and the page (all
 * five at once, as the browser sends them).
 */
import { ADMIN_TOKEN } from '../config.ts';
import { get, timeCalls, type ReadTarget, type ReadTiming } from '../reads.ts';

async function partnerCookie(t: ReadTarget): Promise<string> {
  const invite = await fetch(`${t.url}/api/v1/admin/programs/${t.programId}/partners/${t.partnerId}/invites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (invite.status !== 201) throw new Error(`invite → ${invite.status} ${await invite.text()}`);
  const token = new URL(((await invite.json()) as { invite_url: string }).invite_url).pathname.split('/').pop();
  const accepted = await fetch(`${t.url}/api/v1/partner/invites/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: 'correct horse battery staple' }),
  });
  if (accepted.status !== 201) throw new Error(`accept invite → ${accepted.status} ${await accepted.text()}`);
  return (accepted.headers.get('set-cookie') ?? '').split(';')[0] as string;
}

const HOME = ['/me', '/earnings', '/stats?days=30', '/commissions?limit=25&offset=0', '/notifications?limit=50'];

export async function runPortal(t: ReadTarget): Promise<ReadTiming[]> {
  const headers = { cookie: await partnerCookie(t) };
  const call = (path: string) => get(`${t.url}/api/v1/partner${path}`, headers);
  const out: ReadTiming[] = [];
  for (const path of HOME) out.push(await timeCalls(t, `portal ${path.split('?')[0]}`, () => call(path)));
  out.push(
    await timeCalls(t, 'portal home (5 calls at once)', async () => {
      const all = await Promise.all(HOME.map(call));
      return {
        status: Math.max(...all.map((r) => r.status)),
        bytes: all.reduce((s, r) => s + r.bytes, 0),
        ttfbMs: 0,
      };
    }),
  );
  return out;
}
