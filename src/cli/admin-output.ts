/**
 * How the admin CLI prints an answer: JSON for scripts (`--json`, or whenever stdout is not a
 * terminal), readable tables for people in a terminal. Lists become one row per record with the
 * short fields as columns (nested objects are abbreviated, long values cut); a single record
 * becomes `field  value` lines.
 */
const MAX_CELL = 48;

type Row = Record<string, unknown>;
const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

function cell(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (Array.isArray(v)) s = v.every((x) => !isRecord(x)) ? v.join(', ') : `[${v.length}]`;
  else if (isRecord(v)) s = `{${Object.keys(v).length} fields}`;
  else s = String(v);
  s = s.replace(/\s+/g, ' ');
  return s.length > MAX_CELL ? `${s.slice(0, MAX_CELL - 1)}…` : s;
}

/** A table of records; columns are the fields whose values are not nested records or lists of them. */
export function table(rows: Row[]): string {
  if (rows.length === 0) return '(none)';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))]
    .filter((c) => rows.some((r) => r[c] !== null && r[c] !== undefined))
    .filter((c) => rows.every((r) => !(isRecord(r[c]) || (Array.isArray(r[c]) && (r[c] as unknown[]).some(isRecord)))));
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function fields(record: Row, indent = ''): string[] {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  return Object.entries(record).flatMap(([k, v]) => {
    if (isRecord(v)) return [`${indent}${k}:`, ...fields(v, `${indent}  `)];
    if (Array.isArray(v) && v.some(isRecord))
      return [
        `${indent}${k}:`,
        ...table(v as Row[])
          .split('\n')
          .map((l) => `${indent}  ${l}`),
      ];
    return [`${indent}${k.padEnd(width)}  ${cell(v)}`];
  });
}

/** The answer as a person reads it: each list as a table, each record as fields. */
export function humanize(answer: unknown): string {
  if (Array.isArray(answer)) return answer.some(isRecord) ? table(answer as Row[]) : answer.map(cell).join('\n');
  if (!isRecord(answer)) return cell(answer);
  const out: string[] = [];
  const scalars: Row = {};
  for (const [k, v] of Object.entries(answer)) {
    if (Array.isArray(v) && (v.length === 0 || v.some(isRecord))) out.push(`${k} (${v.length})`, table(v as Row[]), '');
    else if (isRecord(v)) out.push(`${k}`, ...fields(v, '  '), '');
    else scalars[k] = v;
  }
  if (Object.keys(scalars).length) out.push(...fields(scalars));
  return out.join('\n').trimEnd();
}

/** The value at a dotted path (`program.id`, `commissions.0.id`): a string as it is, anything else as JSON. */
export function pick(answer: unknown, path: string): string {
  let v = answer;
  for (const key of path.split('.')) {
    if (typeof v !== 'object' || v === null || !(key in v)) throw new Error(`the answer has no field ${path}`);
    v = (v as Record<string, unknown>)[key];
  }
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function render(answer: unknown, o: { json: boolean; field?: string }): string {
  if (o.field) return pick(answer, o.field);
  return o.json ? JSON.stringify(answer, null, 2) : humanize(answer);
}
