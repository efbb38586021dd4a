/**
 * The outbound event examples of docs/outbound-events.md, read as JSON from its ```json blocks
 * (never made by the event builders): what the schema and document tests check them against.
 */
import { docPage } from './doc-pages.ts';

export type EventExample = { type: string; timestamp: string; data: Record<string, unknown> };

/** Splits a run of JSON values written one after another (the page's block) into the values. */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') {
      if (depth++ === 0) start = i;
    } else if (ch === '}' || ch === ']') {
      if (--depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
    } else if (depth === 0 && ch.trim()) throw new Error(`unexpected ${JSON.stringify(ch)} between JSON values`);
  }
  if (depth !== 0) throw new Error('the JSON block ends inside a value');
  return values;
}

/** Every JSON value of the ```json blocks of docs/outbound-events.md's "Payloads" section (up to the next `##`). */
export function docEventExamples(): EventExample[] {
  const page = docPage('outbound-events');
  const from = page.indexOf('\n## Payloads\n');
  if (from < 0) throw new Error('docs/outbound-events.md has no "Payloads" section');
  const to = page.indexOf('\n## ', from + 1);
  const section = page.slice(from, to < 0 ? undefined : to);
  const blocks = [...section.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  if (!blocks.length) throw new Error('docs/outbound-events.md "Payloads" has no ```json block');
  return blocks.flatMap(jsonValues) as EventExample[];
}
