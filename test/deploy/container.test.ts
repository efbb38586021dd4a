/**
 * What can be checked of the Dockerfile and compose.yaml without a container engine: the files agree
 * with package.json and the configuration schema, and the commands the images run succeed on a
 * clean copy of the build context — the bundles built, the production-only install (offline, from
 * the npm cache), then `migrate` and the roles compose starts, probed on their health-check paths.
 * Not exercised: the base images, `docker build` itself, the network between services, scaling.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, ROLES } from '../../src/config.ts';
import { freePort, REPO_ROOT } from '../helpers/service-process.ts';
import { adminQuery, BASE_DATABASE_URL } from '../helpers/temp-database.ts';
import { deleteRedisPrefix, SHARED_REDIS_URL } from '../helpers/throwaway-redis.ts';
import { runProcess, runToExit, type RunningProcess } from '../helpers/run-process.ts';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

const production = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
type ServiceName = 'migrate' | 'http' | 'worker' | 'postgres' | 'redis';
const compose = parse(readFileSync(join(REPO_ROOT, 'compose.yaml'), 'utf8')) as {
  services: Record<
    ServiceName,
    {
      image?: string;
      build?: unknown;
      command?: string[];
      environment?: Record<string, string>;
      depends_on?: Record<string, { condition: string }>;
      healthcheck?: { test: string[] };
    }
  >;
};
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
const APP_SERVICES = ['migrate', 'http', 'worker'] as const;

/** The Dockerfile's instructions per stage (`build`, `runtime`), continuation lines joined. */
function stages(): { build: string[]; runtime: string[] } {
  const out: Record<string, string[]> = {};
  let current: string[] | null = null;
  for (const line of dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())) {
    const from = /^FROM \S+ AS (\w+)$/.exec(line);
    if (from) out[from[1]!] = current = [];
    else if (current && line && !line.startsWith('#')) current.push(line);
  }
  const { build, runtime } = out;
  if (!build || !runtime)
    throw new Error(`Dockerfile stages: expected build and runtime, found ${Object.keys(out).join(', ')}`);
  return { build, runtime };
}

/** Compose's `${VAR:-default}` / `${VAR:?message}` as compose resolves them with `.env` giving `given`. */
function interpolate(value: string, given: Record<string, string>): string {
  return String(value).replace(
    /\$\{(\w+)(?::([-?])([^}]*))?\}/g,
    (_m, name: string, op: string | undefined, arg: string) => {
      if (given[name] !== undefined) return given[name];
      if (op === '-') return arg;
      throw new Error(`${name} is required: ${arg}`);
    },
  );
}

const DOT_ENV = { ADMIN_TOKEN: 'a'.repeat(40) };
const appEnv = (service: ServiceName, given: Record<string, string> = DOT_ENV) =>
  Object.fromEntries(
    Object.entries(compose.services[service].environment ?? {}).map(([k, v]) => [k, interpolate(v, given)]),
  );

/** `fetch('http://127.0.0.1:<port><path>')` of a service's health check. */
function healthTarget(service: ServiceName): { port: number; path: string } {
  const m = /fetch\('http:\/\/127\.0\.0\.1:(\d+)(\/\w+)'\)/.exec(compose.services[service].healthcheck!.test.join(' '));
  expect(m, `${service} health check`).not.toBeNull();
  return { port: Number(m![1]), path: m![2]! };
}

test('the Dockerfile runs the pinned Node, as a non-root user, with production dependencies only', () => {
  expect(dockerfile).toContain(`ARG NODE_VERSION=${pkg.devDependencies.node}`);
  const { build, runtime } = stages();
  expect(build).toBeDefined();
  expect(runtime).toBeDefined();
  expect(runtime).toContain('USER node');
  expect(runtime.some((l) => /^RUN npm ci --omit=dev\b/.test(l))).toBe(true);
  // The runtime stage takes only bundles from the build stage, never its node_modules.
  expect(runtime.filter((l) => l.startsWith('COPY --from=build')).every((l) => /\/dist /.test(l))).toBe(true);
  expect(runtime.at(-1)).toBe('CMD ["node", "src/main.ts"]');
});

test('compose runs migrations once, then http and worker as separate services with health checks', () => {
  const s = compose.services;
  expect(Object.keys(s).sort()).toEqual(['http', 'migrate', 'postgres', 'redis', 'worker']);
  expect(s.migrate.command).toEqual(['node', 'src/main.ts', 'migrate']);
  expect(s.http.command).toEqual(['node', 'src/main.ts', 'http']);
  expect(s.worker.command).toEqual(['node', 'src/main.ts', 'worker']);
  for (const name of ['http', 'worker'] as const) {
    expect(s[name].depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(s[name].depends_on?.redis?.condition).toBe('service_healthy');
    expect(s[name].image).toBe(s.migrate.image);
  }
  expect(s.migrate.depends_on?.postgres?.condition).toBe('service_healthy');
  expect(s.postgres.healthcheck).toBeDefined();
  expect(s.redis.healthcheck).toBeDefined();
});

test("compose's environment is all known to the configuration schema, and what the roles need is set", () => {
  expect(() => appEnv('http', {})).toThrow(/ADMIN_TOKEN is required/);
  for (const name of APP_SERVICES) {
    const env = appEnv(name);
    const config = loadConfig(env);
    for (const key of Object.keys(env)) expect(Object.keys(config), `${name}: ${key}`).toContain(key);
    expect(ROLES).toContain(compose.services[name].command!.at(-1));
    // The hosts are compose services.
    expect(Object.keys(compose.services)).toContain(new URL(config.DATABASE_URL!).hostname);
    expect(Object.keys(compose.services)).toContain(new URL(config.REDIS_URL!).hostname);
    expect(config.ADMIN_TOKEN).toBe(DOT_ENV.ADMIN_TOKEN);
    expect(config.PUBLIC_BASE_URL).toBeDefined();
  }
  expect(healthTarget('http').port).toBe(Number(appEnv('http').PORT));
  expect(healthTarget('worker').port).toBe(Number(appEnv('worker').WORKER_HEALTH_PORT));
});

// A clean build context: the files git would commit (what .dockerignore leaves), nothing built.
let work = '';
let runtimeDir = '';
let dbName: string | null = null;
const prefix = `container${process.pid}`;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'container-'));
});
afterAll(async () => {
  if (dbName) await adminQuery(`drop database if exists ${dbName} with (force)`);
  if (production) await deleteRedisPrefix(SHARED_REDIS_URL, prefix);
  rmSync(work, { recursive: true, force: true });
});

test('the build and runtime stages, run on a clean copy of the build context, produce a working image layout', async () => {
  const context = join(work, 'context');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(REPO_ROOT, f))) continue;
    mkdirSync(dirname(join(context, f)), { recursive: true });
    cpSync(join(REPO_ROOT, f), join(context, f));
  }
  expect(existsSync(join(context, 'tracker/dist'))).toBe(false);
  const { build, runtime } = stages();
  const node = process.execPath;
  expect(execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${pkg.devDependencies.node}`);

  // Build stage: its `npm ci` (all dependencies) is stood in for by this checkout's node_modules.
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(context, 'node_modules'));
  const buildRun = build.filter((l) => l.startsWith('RUN ') && !l.startsWith('RUN npm ci'));
  expect(buildRun).toEqual(['RUN node tracker/build.ts && node dashboard/build.ts']);
  execFileSync(node, ['tracker/build.ts'], { cwd: context, stdio: 'pipe' });
  execFileSync(node, ['dashboard/build.ts'], { cwd: context, stdio: 'pipe' });

  // Runtime stage: the COPY lines, then its install command (offline here, from the npm cache).
  runtimeDir = join(work, 'app');
  mkdirSync(runtimeDir);
  for (const line of runtime.filter((l) => l.startsWith('COPY '))) {
    const parts = line.split(/\s+/).slice(1);
    const fromBuild = parts[0] === '--from=build';
    const args = fromBuild ? parts.slice(1) : parts;
    const dest = args.at(-1)!;
    for (const src of args.slice(0, -1)) {
      const from = fromBuild ? join(context, src.replace(/^\/app\//, '')) : join(context, src);
      const to =
        (dest.endsWith('/') && args.length > 2) || dest === './'
          ? join(runtimeDir, dest, src.split('/').at(-1)!)
          : join(runtimeDir, dest);
      cpSync(from, to, { recursive: true });
    }
  }
  const install = runtime
    .find((l) => l.startsWith('RUN npm ci'))!
    .replace(/^RUN /, '')
    .split(' && ')[0];
  const r = await runToExit(
    'sh',
    ['-c', `cd ${runtimeDir} && ${install} --offline`],
    { PATH: `${dirname(node)}:${process.env.PATH}` },
    240_000,
  );
  expect(r.code, r.output).toBe(0);
  // (vite itself comes along: vue-router depends on it.) No `node` package: the image's Node runs.
  for (const dev of ['vitest', 'playwright-core', '@vitejs/plugin-vue', 'node'])
    expect(existsSync(join(runtimeDir, 'node_modules', dev)), dev).toBe(false);
  for (const f of ['src/main.ts', 'tracker/dist/tracker.js', 'dashboard/dist/index.html', 'LICENSE'])
    expect(existsSync(join(runtimeDir, f)), f).toBe(true);
  expect(existsSync(join(runtimeDir, 'dashboard/build.ts'))).toBe(false);
});

/** Polls `url` until it answers 2xx; throws with its last answer after `until` ms. */
async function get(url: string, until = 60_000): Promise<Response> {
  const deadline = Date.now() + until;
  for (;;) {
    const res = await fetch(url).catch(() => null);
    if (res?.ok) return res;
    if (Date.now() > deadline)
      throw new Error(`${url}: ${res ? `answered ${res.status}` : 'no answer'} after ${until} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test("the runtime image's commands: migrate, then the roles compose runs, answering their health checks", async () => {
  expect(runtimeDir).not.toBe('');
  const node = process.execPath;
  const started: RunningProcess[] = [];
  try {
    if (production) {
      dbName = `container_${randomBytes(4).toString('hex')}`;
      await adminQuery(`create database ${dbName}`);
      const u = new URL(BASE_DATABASE_URL);
      u.pathname = `/${dbName}`;
      const [port, workerPort] = [await freePort(), await freePort()];
      const env = (service: ServiceName) => ({
        ...appEnv(service),
        DATABASE_URL: u.toString(),
        REDIS_URL: SHARED_REDIS_URL,
        QUEUE_PREFIX: prefix,
        HOST: '127.0.0.1',
        PORT: String(port),
        WORKER_HEALTH_PORT: String(workerPort),
        NODE_ENV: 'production',
      });
      const migrate = await runToExit(
        'sh',
        [
          '-c',
          `cd ${runtimeDir} && ${compose.services.migrate.command!.map((a) => (a === 'node' ? node : a)).join(' ')}`,
        ],
        env('migrate'),
      );
      expect(migrate.code, migrate.output).toBe(0);
      expect(migrate.output).toContain('applied: ');
      const [cmdHttp, cmdWorker] = [compose.services.http.command!, compose.services.worker.command!];
      const http = runProcess(node, cmdHttp.slice(1), env('http'), { cwd: runtimeDir });
      started.push(http);
      const httpCheck = healthTarget('http');
      expect((await get(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      // No worker yet: the http process is not ready.
      expect((await fetch(`http://127.0.0.1:${port}${httpCheck.path}`)).status).toBe(503);
      const worker = runProcess(node, cmdWorker.slice(1), env('worker'), { cwd: runtimeDir });
      started.push(worker);
      const workerCheck = healthTarget('worker');
      expect((await get(`http://127.0.0.1:${workerPort}${workerCheck.path}`)).status).toBe(200);
      expect((await get(`http://127.0.0.1:${port}${httpCheck.path}`)).status).toBe(200);
      expect((await get(`http://127.0.0.1:${port}/tracker.js`)).status).toBe(200);
      expect((await get(`http://127.0.0.1:${port}/dashboard/`)).status).toBe(200);
    } else {
      // Embedded mode: the image's default command (`serve`) with its DATA_DIR.
      const port = await freePort();
      const env = {
        DATA_DIR: join(work, 'data'),
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_FORMAT: 'json',
        DEMO_SEED: 'false',
        NODE_ENV: 'production',
      };
      const migrate = await runToExit('sh', ['-c', `cd ${runtimeDir} && ${node} src/main.ts migrate`], env);
      expect(migrate.code, migrate.output).toBe(0);
      expect(migrate.output).toContain('applied: ');
      const serve = runProcess(node, ['src/main.ts'], env, { cwd: runtimeDir });
      started.push(serve);
      for (const path of [healthTarget('http').path, '/healthz', '/tracker.js', '/dashboard/']) {
        expect((await get(`http://127.0.0.1:${port}${path}`)).status, path).toBe(200);
      }
      expect(serve.output()).not.toContain('building');
    }
  } finally {
    for (const p of started.reverse()) await p.stop();
  }
});
