/**
 * A command as a person types it (`npm start`, `node src/main.ts bogus`, under a pseudo-terminal
 * with `script`), for tests about what a process prints and how it exits. Stopped by pid only.
 */
import { spawn } from 'node:child_process';
import { REPO_ROOT } from './service-process.ts';

export type RunningProcess = {
  pid: number;
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
  /** Resolves once the output matches, rejects when the process exits first or on timeout. */
  waitForOutput(re: RegExp, timeoutMs?: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
};

export function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  o: { cwd?: string } = {},
): RunningProcess {
  const child = spawn(command, args, {
    cwd: o.cwd ?? REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  let done: number | string | null = null;
  // npm runs the script in a child of its own: signal the whole group we started.
  const kill = (sig: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid as number), sig);
    } catch {
      /* gone */
    }
  };
  const reap = () => {
    if (done === null) kill('SIGKILL');
  };
  process.once('exit', reap);
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, sig) => {
      done = code ?? sig ?? 'unknown';
      process.off('exit', reap);
      resolve(done);
    });
  });
  return {
    pid: child.pid as number,
    output: () => out,
    exited,
    async waitForOutput(re, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!re.test(out)) {
        if (done !== null) throw new Error(`exited (${done}) before printing ${re}:\n${out}`);
        if (Date.now() > deadline) throw new Error(`no ${re} within ${timeoutMs} ms:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop(signal = 'SIGTERM') {
      if (done !== null) return done;
      kill(signal);
      const t = setTimeout(() => kill('SIGKILL'), 15_000);
      const r = await exited;
      clearTimeout(t);
      return r;
    },
  };
}

/** Runs to completion (killed after `timeoutMs`); returns the exit code and output. */
export async function runToExit(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<{ code: number | string; output: string }> {
  const p = runProcess(command, args, env);
  const t = setTimeout(() => void p.stop('SIGKILL'), timeoutMs);
  const code = await p.exited;
  clearTimeout(t);
  return { code, output: p.output() };
}
