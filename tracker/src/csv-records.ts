/**
 * Reads CSV records from text arriving in chunks, strictly as the service writes them: `,`
 * between cells, `\n` after every record, a cell in `"` only when it holds `,`, `"`, `\n` or `\r`
 * (with `""` for a quote). Anything else (a `\r` outside quotes, a stray quote, a cell quoted that
 * needs no quotes) is not a record the service wrote, so `parseRecord` answers null for it.
 */

const NEEDS_QUOTES = /[",\n\r]/;

/** The cells of one record's text (without its `\n`), or null when it is not written canonically. */
export function parseRecord(text: string): string[] | null {
  if (!text.includes('"')) return text.includes('\r') ? null : text.split(',');
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    let cell: string;
    if (text[i] === '"') {
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) return null;
        value += text.slice(j, q);
        if (text[q + 1] === '"') {
          value += '"';
          j = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      if (!NEEDS_QUOTES.test(value)) return null;
      cell = value;
    } else {
      const end = text.indexOf(',', i);
      cell = text.slice(i, end < 0 ? text.length : end);
      if (cell.includes('"') || cell.includes('\r')) return null;
      i = end < 0 ? text.length : end;
    }
    cells.push(cell);
    if (i === text.length) return cells;
    if (text[i] !== ',') return null;
    i++;
    if (i === text.length) {
      cells.push('');
      return cells;
    }
  }
}

/** A record's text and the file line it starts on (1-based). */
export type RawRecord = { text: string; line: number };

/**
 * Splits chunks of text into records: a record ends at a `\n` outside quotes. `end()` answers the
 * unfinished rest (text after the last `\n`), which a canonical file does not have.
 */
export function createRecordSplitter(onRecord: (r: RawRecord) => void): {
  write(chunk: string): void;
  end(): string;
} {
  let pending = '';
  let pendingStart = 1;
  return {
    write(chunk) {
      let text = pending + chunk;
      let from = 0;
      for (;;) {
        const nl = text.indexOf('\n', from);
        if (nl < 0) break;
        const candidate = text.slice(0, nl);
        // An odd number of quotes: the newline is inside a quoted cell; the record goes on.
        if (countQuotes(candidate) % 2 === 1) {
          from = nl + 1;
          continue;
        }
        onRecord({ text: candidate, line: pendingStart });
        pendingStart += countNewlines(candidate) + 1;
        text = text.slice(nl + 1);
        from = 0;
      }
      pending = text;
    },
    end() {
      return pending;
    },
  };
}

function countQuotes(s: string): number {
  let n = 0;
  for (let i = s.indexOf('"'); i >= 0; i = s.indexOf('"', i + 1)) n++;
  return n;
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
