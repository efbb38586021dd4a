/**
 * The documentation site (`npm run docs:build`, `npm run docs:dev`), built by VitePress from the
 * Markdown pages of docs/. Static only: the service does not serve it (it serves the API
 * reference at /docs). The sidebar lists the guide and reference pages in reading order; every
 * other page of docs/ appears under "More topics" by its first heading, so a new page needs no
 * change here (add it to GUIDE or REFERENCE to give it a place of its own).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme } from 'vitepress';
import { GUIDE, REFERENCE } from './pages.ts';

const DOCS = fileURLToPath(new URL('..', import.meta.url));

/** A page's title: its first `# ` heading. */
function title(page: string): string {
  const text = readFileSync(`${DOCS}/${page}.md`, 'utf8');
  return /^# (.+)$/m.exec(text)?.[1]?.replace(/`/g, '') ?? page;
}

const item = (page: string): DefaultTheme.SidebarItem => ({ text: title(page), link: `/${page}` });

const listed = new Set(['index', ...GUIDE, ...REFERENCE]);
const others = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md') && !listed.has(f.slice(0, -3)))
  .map((f) => f.slice(0, -3))
  .sort();

/**
 * GitHub's heading ids (lower case, punctuation dropped, spaces to hyphens), so a link written for
 * the repository's Markdown view (`providers.md#x402-http-402-payments`) also works on the site.
 */
function githubSlug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

export default defineConfig({
  title: 'Partner conversion tracking',
  description: 'Attributes conversions to the partners who referred them and pays commissions on them.',
  cleanUrls: true,
  // http://localhost:3000/… links point at the reader's own running service.
  ignoreDeadLinks: 'localhostLinks',
  lastUpdated: false,
  head: [['link', { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' }]],
  markdown: { anchor: { slugify: githubSlug }, headers: { slugify: githubSlug } },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/first-program' },
      { text: 'Reference', link: '/tracking-api' },
    ],
    sidebar: [
      { text: 'Guide', items: GUIDE.map(item) },
      { text: 'Reference', items: REFERENCE.map(item) },
      ...(others.length ? [{ text: 'More topics', items: others.map(item) }] : []),
    ],
    outline: { level: [2, 3] },
    search: { provider: 'local' },
  },
});
