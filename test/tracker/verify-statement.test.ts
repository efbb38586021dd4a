/**
 * The standalone verifier against statements made with the service's own code: every untouched
 * statement verifies; every single-byte change of a small statement (each byte, each bit flipped) and
 * random single-byte changes of a large one (fast-check, seeded) are detected.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../tracker/src/cli.ts';
import { verifyStatement } from '../../tracker/src/verify-statement.ts';
import { makeStatementKey, statementFileText } from '../helpers/statement-file.ts';

const key = makeStatementKey();
const keys = [key];

describe('tracker verifyStatement', () => {
  test('untouched statements verify, whatever their lines (20 seeds, 1 to 40 lines)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const text = statementFileText({ lines: 1 + ((seed * 7) % 40), seed, key });
      const r = verifyStatement(text, keys);
      expect(r.problem, `seed ${seed}`).toBeNull();
      expect(r.ok).toBe(true);
      expect(r.unsignedLines).toBe(0);
    }
  });

  test('every single-byte change of a small statement is detected (each byte, each of its 8 bits flipped)', () => {
    const text = statementFileText({ lines: 6, seed: 42, key });
    const bytes = Buffer.from(text, 'utf8');
    expect(verifyStatement(text, keys).ok).toBe(true);
    let tried = 0;
    for (let i = 0; i < bytes.length; i++) {
      for (const flip of [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80]) {
        const changed = Buffer.from(bytes);
        changed[i] = bytes[i]! ^ flip;
        const r = verifyStatement(changed.toString('utf8'), keys);
        expect(r.ok, `byte ${i} ^ 0x${flip.toString(16)}`).toBe(false);
        tried++;
      }
    }
    expect(tried).toBe(bytes.length * 8);
  });

  test('random single-byte changes of a large statement are detected (fast-check, seeded)', () => {
    const bytes = Buffer.from(statementFileText({ lines: 5_000, seed: 7, key }), 'utf8');
    expect(verifyStatement(bytes.toString('utf8'), keys).ok).toBe(true);
    fc.assert(
      fc.property(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const changed = Buffer.from(bytes);
        changed[at] = bytes[at]! ^ flip;
        return !verifyStatement(changed.toString('utf8'), keys).ok;
      }),
      { seed: 20261127, numRuns: 200 },
    );
  }, 180_000);

  test('the report names the first bad line and column', () => {
    const text = statementFileText({ lines: 5, seed: 3, key });
    const lines = text.split('\n');
    const cells = lines[3]!.split(',');
    cells[5] = String(BigInt(cells[5]!) + 1n); // balance_cents of statement line 3 (file line 4)
    lines[3] = cells.join(',');
    const r = verifyStatement(lines.join('\n'), keys);
    expect(r.ok).toBe(false);
    expect(r.problem).toMatchObject({ line: 4, column: 'balance_cents' });
  });

  test('a statement signed by a key not given, or carrying no checkpoint, does not verify', () => {
    const text = statementFileText({ lines: 4, seed: 5, key });
    const other = makeStatementKey();
    expect(verifyStatement(text, [other]).problem).toMatchObject({ column: 'checkpoint_key_id' });
    const forged = statementFileText({ lines: 4, seed: 5, key: { ...other, key_id: key.key_id } });
    expect(verifyStatement(forged, keys).problem).toMatchObject({ column: 'checkpoint_signature' });
    const unsigned = statementFileText({ lines: 4, seed: 5, key, checkpointAt: 0 });
    expect(verifyStatement(unsigned, keys).problem?.message).toMatch(/no signed checkpoint/);
  });

  test('lines after the checkpoint are chained and counted as not signed yet', () => {
    const r = verifyStatement(statementFileText({ lines: 10, seed: 9, key, checkpointAt: 6 }), keys);
    expect(r).toMatchObject({ ok: true, lines: 10, unsignedLines: 4, checkpoint: { lines: 6 } });
  });

  test('the CLI: 0 verified, 1 naming the first bad line, 2 for usage and read errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-cli-'));
    const good = join(dir, 'good.csv');
    const text = statementFileText({ lines: 3, seed: 11, key });
    writeFileSync(good, text);
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, text.replace(/,USD,/, ',EUR,'));
    const inline = `${key.key_id}:${key.public_key}`;
    const run = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(['verify-statement', ...argv], {
        env: {},
        out: (l) => out.push(l),
        err: (l) => err.push(l),
      });
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    expect(await run(good, '--key', inline)).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse((await run(good, '--key', inline, '--json')).out)).toMatchObject({ ok: true, lines: 3 });
    const invalid = await run(bad, '--key', inline);
    expect(invalid.code).toBe(1);
    expect(invalid.err).toMatch(/^INVALID: .*bad\.csv line \d+ \(hash\)/);
    expect((await run(good)).err).toContain('missing --key');
    expect((await run('--key', inline)).err).toContain('missing FILE');
    expect((await run(join(dir, 'none.csv'), '--key', inline)).err).toContain('no such file');
    writeFileSync(join(dir, 'keys.json'), '{"not": "keys"}');
    expect((await run(good, '--key', join(dir, 'keys.json'))).err).toContain('expected {"keys"');
    for (const argv of [[good], ['--key', inline], [join(dir, 'none.csv'), '--key', inline]])
      expect((await run(...argv)).code).toBe(2);
  });
});
