/**
 * HAProxy in front of the `http` processes: round robin, a health check on /readyz every second
 * (2 s to answer; down after 3 failures, up after 2 successes), a refused connection or an empty
 * response retried on the other server. Started by us on free ports, stopped by pid; its stats page tells which
 * servers it considers up.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/service-process.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Haproxy = {
  url: string;
  /** Server name → HAProxy's status (UP, DOWN, ...). */
  states(): Promise<Record<string, string>>;
  waitUntilUp(names: string[], timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

export async function createHaproxy(backends: Array<{ name: string; port: number }>): Promise<Haproxy> {
  const port = await freePort();
  const statsPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 1000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      // /readyz bounds each of its checks to 750 ms: give it time on a busy machine.
      '  timeout check 2s',
      '  retries 2',
      '  option redispatch',
      '  retry-on conn-failure empty-response',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend http_role',
      'frontend stats',
      `  bind 127.0.0.1:${statsPort}`,
      '  stats enable',
      '  stats uri /stats',
      'backend http_role',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  default-server inter 1s fall 3 rise 2',
      ...backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check`),
      '',
    ].join('\n'),
  );
  const child = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
  const reap = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', reap);
  const gone = new Promise<void>((resolve) =>
    child.on('exit', () => {
      process.off('exit', reap);
      resolve();
    }),
  );
  const states = async () => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
    const out: Record<string, string> = {};
    for (const line of csv.split('\n')) {
      const cells = line.split(',');
      if (cells[0] === 'http_role' && cells[1] !== 'BACKEND') out[cells[1]!] = cells[17]!;
    }
    return out;
  };
  const h: Haproxy = {
    url: `http://127.0.0.1:${port}`,
    states,
    async waitUntilUp(names, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${err}`);
        const s = await states().catch(() => ({}) as Record<string, string>);
        if (names.every((n) => s[n] === 'UP')) return;
        if (Date.now() > deadline) throw new Error(`haproxy servers not up: ${JSON.stringify(s)} ${err}`);
        await sleep(200);
      }
    },
    async close() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await gone;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}
