/**
 * Writes docs/api.md, the API reference, from the OpenAPI document the server serves
 * (`npm run docs:api`). Run it after changing a route's operation; a test fails until you do.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../http/openapi/build-document.ts';
import { OPERATIONS } from '../http/openapi/operations.ts';
import { renderApiMarkdown } from '../http/openapi/render-markdown.ts';

export const API_DOC_PATH = fileURLToPath(new URL('../../docs/api.md', import.meta.url));

/** The reference as it should be committed. */
export function apiMarkdown(): string {
  return renderApiMarkdown(buildOpenApiDocument(OPERATIONS, { version: 'unversioned' }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(API_DOC_PATH, apiMarkdown());
  console.log(`wrote ${API_DOC_PATH}`);
}
