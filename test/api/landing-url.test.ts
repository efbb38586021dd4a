/**
 * The program's landing URL (admin API extension) and the partner's default link in the portal:
 * validation in plain words (a full address, https unless local, on the domain), a domain change
 * that would leave the landing URL off it, and the demo page only while it is on.
 */
import { describe, expect, test } from 'vitest';
import { createProgramFixture, useHarness } from '../helpers/harness.ts';
import { acceptInvite, asPartner, invite } from '../portal/portal-sessions.ts';

describe('landing URL setting', () => {
  const h = useHarness();
  const admin = (method: string, path: string, body?: unknown) => h.admin(method, path, body);
  const refused = async (id: number, body: Record<string, unknown>) => {
    const err = await admin('PATCH', `/programs/${id}`, body).catch((e: Error) => e.message);
    expect(err).toMatch(/→ 400 /);
    return JSON.parse(String(err).replace(/^[^{]*/, '')).error;
  };

  test('stored, answered and cleared; refused in plain words when not a full https address on the domain', async () => {
    const { program } = await admin('POST', '/programs', {
      name: 'Shop',
      domain: 'shop.example.com',
      landing_url: 'https://shop.example.com/pricing?plan=pro#faq',
    });
    expect(program.landing_url).toBe('https://shop.example.com/pricing?plan=pro#faq');
    expect((await admin('GET', `/programs/${program.id}`)).program.landing_url).toBe(
      'https://shop.example.com/pricing?plan=pro#faq',
    );

    const offDomain = await refused(program.id, { landing_url: 'https://evil.example/pricing' });
    expect(offDomain.message).toBe(
      "landing_url: Use an address on the program's domain, shop.example.com (this one is on evil.example).",
    );
    expect((await refused(program.id, { landing_url: 'shop.example.com/pricing' })).message).toBe(
      'landing_url: Enter a full address that starts with https://, such as https://shop.example.com/pricing.',
    );
    expect((await refused(program.id, { landing_url: 'http://shop.example.com/' })).message).toContain(
      'http:// is only for localhost or 127.0.0.1',
    );
    // A new domain that would leave the stored landing URL off it: refused, nothing changed.
    expect((await refused(program.id, { domain: 'other.example' })).message).toContain(
      "on the program's domain, other.example",
    );
    expect((await admin('GET', `/programs/${program.id}`)).program).toMatchObject({
      domain: 'shop.example.com',
      landing_url: 'https://shop.example.com/pricing?plan=pro#faq',
    });
    // Both at once is fine; then cleared.
    const moved = await admin('PATCH', `/programs/${program.id}`, {
      domain: 'other.example',
      landing_url: 'https://www.other.example/start',
    });
    expect(moved.program.landing_url).toBe('https://www.other.example/start');
    expect((await admin('PATCH', `/programs/${program.id}`, { landing_url: null })).program.landing_url).toBeNull();

    // Without a domain: any https site, or http on localhost.
    const { program: bare } = await admin('POST', '/programs', { name: 'Local' });
    expect(bare.landing_url).toBeNull();
    const local = await admin('PATCH', `/programs/${bare.id}`, { landing_url: 'http://localhost:8080/landing' });
    expect(local.program.landing_url).toBe('http://localhost:8080/landing');
    expect((await refused(bare.id, { landing_url: 'http://192.168.1.5/' })).message).toContain('Use https://');
  });

  test("the portal's default link: landing URL with the code, query and fragment kept", async () => {
    const f = await createProgramFixture(h, {
      domain: 'shop.example.com',
      landing_url: 'https://shop.example.com/pricing?plan=pro#faq',
    });
    const s = await acceptInvite(h, await invite(h, f, f.partnerId));
    const me = (await asPartner(h, s, '/me')).body;
    expect(me.referral_link).toBe(`https://shop.example.com/pricing?plan=pro&aff=${f.partnerCode}#faq`);
    expect(me.program.landing_url).toBe('https://shop.example.com/pricing?plan=pro#faq');
    // Domain only: its home page.
    await h.admin('PATCH', `/programs/${f.programId}`, { landing_url: null });
    const home = (await asPartner(h, s, '/me')).body;
    expect(home.referral_link).toBe(`https://shop.example.com/?aff=${f.partnerCode}`);
    expect(home.program.landing_url).toBe('https://shop.example.com/');
  });
});

describe('no domain and no landing URL: the demo page link only while the demo page is on', () => {
  // '': DEMO_PAGE unset, its default: on in embedded mode, off in production mode.
  for (const demo of ['true', 'false', ''] as const) {
    describe(`DEMO_PAGE=${demo || '(unset)'}`, () => {
      const h = useHarness({ DEMO_PAGE: demo });
      test('the link, or none and the demo page off', async () => {
        const on = demo === 'true' || (demo === '' && h.mode === 'embedded');
        const f = await createProgramFixture(h);
        const s = await acceptInvite(h, await invite(h, f, f.partnerId));
        const me = (await asPartner(h, s, '/me')).body;
        expect(me.program.landing_url).toBeNull();
        expect(me.referral_link).toBe(
          on ? `http://localhost:3000/demo?program=${f.programId}&aff=${f.partnerCode}` : '',
        );
        expect((await h.request(`/demo?program=${f.programId}`)).status).toBe(on ? 200 : 404);
      });
    });
  }
});
