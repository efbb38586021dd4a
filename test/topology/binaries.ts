/**
 * The Debian packages the topology runs on: found with `command -v`, installed with apt-get when
 * one is missing and we are root, else a clear failure naming the package.
 */
import { execFileSync } from 'node:child_process';
import { hasPostgresBinaries } from '../helpers/pg-replica.ts';

const NEEDED: Array<{ bin: string; pkg: string }> = [
  { bin: 'haproxy', pkg: 'haproxy' },
  { bin: 'pgbouncer', pkg: 'pgbouncer' },
  { bin: 'redis-server', pkg: 'redis-server' },
  { bin: 'redis-sentinel', pkg: 'redis-sentinel' },
];

const has = (bin: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Installs what is missing (root only); returns each program's version line. */
export function ensureBinaries(): Record<string, string> {
  const missing = NEEDED.filter((n) => !has(n.bin));
  if (missing.length) {
    const pkgs = missing.map((m) => m.pkg);
    if (process.getuid?.() !== 0) throw new Error(`missing ${pkgs.join(', ')}: apt-get install ${pkgs.join(' ')}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update'], { stdio: 'ignore', env });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: 'ignore', env });
    // Debian starts packaged daemons on install: ours run on their own ports, theirs are left alone.
  }
  const version = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8' }).split('\n')[0]!.trim();
  // The private primary and replica (test/helpers/pg-replica.ts) run PostgreSQL 15's server binaries.
  if (!hasPostgresBinaries()) throw new Error('missing PostgreSQL 15 server binaries: apt-get install postgresql-15');
  return {
    postgresql: version('/usr/lib/postgresql/15/bin/postgres', ['--version']),
    haproxy: version('haproxy', ['-v']),
    pgbouncer: version('pgbouncer', ['--version']),
    redis: version('redis-server', ['--version']),
  };
}
