/**
 * Development logs are readable in a terminal (local time, level, message) and JSON lines for a
 * collector; the choice follows the TTY unless LOG_FORMAT says otherwise. Real processes, with
 * `script` providing the pseudo-terminal a person's shell would.
 */
import { expect, test, vi } from 'vitest';
import { runProcess } from '../helpers/run-process.ts';

// Each case starts real processes on a shared two-core machine.
vi.setConfig({ testTimeout: 240_000 });

const env = { DATA_DIR: 'memory://', HOST: '127.0.0.1', PORT: '0', DEMO_SEED: 'false' };
// eslint-disable-next-line no-control-regex -- strips the ANSI colour escapes pino-pretty writes
const strip = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

async function firstLines(command: string, args: string[], extra: Record<string, string>): Promise<string> {
  const p = runProcess(command, args, { ...env, ...extra });
  try {
    await p.waitForOutput(/HTTP server listening/, 180_000);
    return strip(p.output());
  } finally {
    await p.stop();
  }
}

const prettyLine = /^\[?\d{2}:\d{2}:\d{2}\.\d{3}\]? INFO:? .*HTTP server listening/m;

test('stdout not a terminal: JSON lines', async () => {
  const out = await firstLines(process.execPath, ['src/main.ts'], {});
  const line = out.split('\n').find((l) => l.includes('HTTP server listening')) ?? '';
  expect(JSON.parse(line)).toMatchObject({ level: 30, msg: 'HTTP server listening' });
});

test('stdout a terminal: readable local-time lines', async () => {
  const out = await firstLines('script', ['-qfec', `${process.execPath} src/main.ts`, '/dev/null'], {});
  expect(out).toMatch(prettyLine);
  expect(out).not.toMatch(/^\{"level"/m);
});

test('LOG_FORMAT overrides the terminal check both ways', async () => {
  expect(await firstLines(process.execPath, ['src/main.ts'], { LOG_FORMAT: 'pretty' })).toMatch(prettyLine);
  const forcedJson = await firstLines('script', ['-qfec', `${process.execPath} src/main.ts`, '/dev/null'], {
    LOG_FORMAT: 'json',
  });
  expect(forcedJson).toMatch(/^\{"level":30,.*"msg":"HTTP server listening"/m);
});
