/**
 * The API reference page's configuration (/docs/init.js): this server's document, and none of the
 * renderer's hosted-service controls (Ask AI, Generate MCP, developer tools with Deploy and Share,
 * telemetry). What Chromium shows is checked in test/tracker-e2e/api-docs.test.ts. Both modes.
 */
import { expect, test } from 'vitest';
import { useHarness } from '../helpers/harness.ts';

const h = useHarness();

test('/docs/init.js starts the renderer on /openapi.json without its cloud controls', async () => {
  const r = await h.request('/docs/init.js');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toContain('application/javascript');
  const m = /^Scalar\.createApiReference\('#app', (\{.*\})\);\n$/s.exec(r.body as string);
  expect(m, r.body).not.toBeNull();
  const config = JSON.parse(m![1]!);
  expect(config).toMatchObject({
    url: '/openapi.json',
    withDefaultFonts: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    telemetry: false,
    favicon: '/favicon.svg',
  });
});
