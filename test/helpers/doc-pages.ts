/**
 * The documentation pages of docs/ as the tests read them: a page's text, one section of it, and
 * its shell blocks (```sh), which the guides' tests run as written.
 */
import { readdirSync, readFileSync } from 'node:fs';

const DOCS = new URL('../../docs/', import.meta.url);

/** The text of docs/<name>.md. */
export function docPage(name: string): string {
  return readFileSync(new URL(`${name}.md`, DOCS), 'utf8');
}

/** Every page of docs/ by name (without `.md`). */
export function docPageNames(): string[] {
  return readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => f.slice(0, -3));
}

/** The body of every ```sh block of a page, in order. */
export function shellBlocks(text: string): string[] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}
