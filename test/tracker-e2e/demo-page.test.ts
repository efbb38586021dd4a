/** GET /demo and GET /tracker.js through the real app: what the browser suites load. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { ensureFreshTrackerBundle } from './e2e-helpers.ts';

let h: Harness;
beforeAll(async () => {
  await ensureFreshTrackerBundle();
  h = await createHarness({ DEMO_API_ORIGINS: 'http://localhost:4000, https://api.example' });
});
afterAll(async () => {
  await h.close();
});

const scriptTag = (html: string) => /<script src="\/tracker\.js"[^>]*><\/script>/.exec(html)?.[0];

describe('GET /demo', () => {
  test('embeds /tracker.js with the program id and the signup form and state output', async () => {
    const r = await h.request('/demo?program=42&aff=partner1');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(scriptTag(r.body)).toBe('<script src="/tracker.js" data-tracker-program-id="42" async></script>');
    expect(r.body).toContain('<form id="signup">');
    expect(r.body).toContain('<pre id="state">');
    expect(r.body).not.toContain('consent-yes');
    expect(r.body).not.toContain('partner1'); // aff is the tracker's to read, never echoed
  });

  test('consent=required turns on consent mode and shows the consent buttons; other values do not', async () => {
    const on = await h.request('/demo?program=42&consent=required');
    expect(scriptTag(on.body)).toBe(
      '<script src="/tracker.js" data-tracker-program-id="42" data-tracker-consent="required" async></script>',
    );
    expect(on.body).toContain('id="consent-yes"');
    const off = await h.request('/demo?program=42&consent=%22%3E%3Cscript%3Ealert(1)%3C/script%3E');
    expect(scriptTag(off.body)).toBe('<script src="/tracker.js" data-tracker-program-id="42" async></script>');
    expect(off.body).not.toContain('alert(1)');
  });

  test('api_base becomes data-tracker-api-base, normalised and escaped, and is allowed by the CSP', async () => {
    const r = await h.request(`/demo?program=7&api_base=${encodeURIComponent('http://localhost:4000/')}`);
    expect(scriptTag(r.body)).toBe(
      '<script src="/tracker.js" data-tracker-program-id="7" data-tracker-api-base="http://localhost:4000" async></script>',
    );
    expect(r.headers.get('content-security-policy')).toContain("connect-src 'self' http://localhost:4000;");
    const quoted = await h.request(
      `/demo?program=7&api_base=${encodeURIComponent('https://api.example/x"><script>alert(1)</script>')}`,
    );
    expect(quoted.status).toBe(200);
    expect(quoted.body).not.toContain('<script>alert');
    expect(quoted.body).not.toContain('x">');
  });

  test("api_base: the page's own host (http or https) or a DEMO_API_ORIGINS origin, nothing else", async () => {
    // The in-process requests of the harness arrive for http://localhost.
    for (const ok of ['http://localhost', 'https://localhost/api', 'http://localhost:4000', 'https://api.example']) {
      const r = await h.request(`/demo?program=3&api_base=${encodeURIComponent(ok)}`);
      expect(r.status, ok).toBe(200);
    }
    for (const foreign of [
      'https://evil.example',
      'http://localhost:4001',
      'http://api.example',
      'https://api.example.evil.example',
      'https://localhost.evil.example',
    ]) {
      const r = await h.request(`/demo?program=3&api_base=${encodeURIComponent(foreign)}`);
      expect(r.status, foreign).toBe(400);
      expect(r.body).toContain('DEMO_API_ORIGINS');
      expect(r.body).not.toContain('evil');
      expect(r.headers.get('content-security-policy') ?? '').not.toContain('evil');
    }
  });

  test('DEMO_PAGE: on by default in embedded mode, off in production mode; explicit values win', async () => {
    const byDefault = await createHarness({ DEMO_PAGE: '' });
    const off = await createHarness({ DEMO_PAGE: 'false' });
    try {
      const r = await byDefault.request('/demo?program=1');
      expect(r.status).toBe(byDefault.mode === 'embedded' ? 200 : 404);
      const o = await off.request('/demo?program=1');
      expect(o.status).toBe(404);
      expect(o.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(o.body).not.toContain('/tracker.js');
    } finally {
      await Promise.all([byDefault.close(), off.close()]);
    }
  });

  test.each([
    ['missing program', '/demo'],
    ['zero', '/demo?program=0'],
    ['negative', '/demo?program=-1'],
    ['fraction', '/demo?program=1.5'],
    ['markup', `/demo?program=${encodeURIComponent('1"><script>alert(1)</script>')}`],
    ['beyond a safe integer', '/demo?program=99999999999999999'],
    ['api_base javascript: URL', `/demo?program=1&api_base=${encodeURIComponent('javascript:alert(1)')}`],
    ['api_base with credentials', `/demo?program=1&api_base=${encodeURIComponent('http://user:pw@api.example')}`],
    ['api_base not a URL', '/demo?program=1&api_base=nope'],
  ])('400 without echoing the input: %s', async (_label, path) => {
    const r = await h.request(path);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.body).not.toContain('alert(1)');
    expect(r.body).not.toContain('user:pw');
    expect(r.body).not.toContain('/tracker.js"');
  });

  test('a CSP allows only our own scripts and the page nonce', async () => {
    const r = await h.request('/demo?program=1');
    const csp = r.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(csp).toMatch(/^default-src 'none'; script-src 'self' 'nonce-[^']+'; connect-src 'self';/);
    expect(r.body).toContain(`<script nonce="${nonce}">`);
    expect((await h.request('/demo?program=1')).headers.get('content-security-policy')).not.toContain(nonce!);
  });
});

describe('GET /tracker.js', () => {
  test('serves the current bundle with an ETag that answers 304', async () => {
    const r = await h.request('/tracker.js');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
    expect(r.body).toContain('tracker_click_id');
    const etag = r.headers.get('etag')!;
    const again = await h.request('/tracker.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});
