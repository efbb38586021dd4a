/**
 * The dashboard calls only what the server serves. Its API client takes only the paths of its
 * route table (dashboard/src/api-types.ts `ApiRoutes`; its links: `ApiLinks`), which vue-tsc
 * holds every call and link to; here every path of that table, read by the TypeScript checker,
 * goes through the router of the real app (`createHttpApp`) and must land on a registered route
 * whose documented parameters (and query, where the path fixes it) accept it and whose security
 * admits the session the dashboard calls it with.
 */
import { H3Event } from 'h3';
import { describe, expect, test } from 'vitest';
import { createHttpApp } from '../../src/http/app.ts';
import type { Operation } from '../../src/http/openapi/operation.ts';
import { OPERATIONS } from '../../src/http/openapi/operations.ts';
import { useHarness } from '../helpers/harness.ts';
import { dashboardRoutes, type DashboardRoute } from '../helpers/dashboard-routes.ts';

const h = useHarness();

/** The security scheme of each session kind of the dashboard's client. */
const SCHEME: Record<string, Operation['security'][number]> = {
  operator: 'operatorSession',
  partner: 'partnerSession',
};

/** A path parameter against its documented schema: ids are numbers on the wire of the document. */
function paramProblem(op: Operation, name: string, raw: string): string | null {
  const schema = op.params?.[name];
  if (!schema) return null; // undocumented: any string
  // The export routes take the kind with a `.csv` suffix too (csv-response.ts `exportKind`).
  const value = name === 'kind' && op.path.includes('/exports/') ? raw.replace(/\.csv$/, '') : raw;
  if (schema.safeParse(value).success || (/^\d+$/.test(value) && schema.safeParse(Number(value)).success)) return null;
  return `parameter ${name}=${value} is not one the route takes`;
}

/** Why the server does not serve this route of the dashboard's table (null: it does). */
function problem(app: ReturnType<typeof createHttpApp>, r: DashboardRoute): string | null {
  const url = new URL(r.path, 'http://dashboard.test');
  const match = app['~findRoute'](new H3Event(new Request(url, { method: r.method })));
  if (!match) return 'no route';
  const pattern = match.data.route;
  const op = OPERATIONS.find((o) => o.method.toUpperCase() === r.method && o.path === pattern);
  if (!op) return `routed to ${r.method} ${pattern}, which is no documented operation`;
  for (const [name, raw] of Object.entries(match.params ?? {})) {
    const bad = paramProblem(op, name, decodeURIComponent(raw));
    if (bad) return `${r.method} ${pattern}: ${bad}`;
  }
  if (r.literalQuery && op.query && !op.query.safeParse(Object.fromEntries(url.searchParams)).success)
    return `${r.method} ${pattern}: query ${url.search} is not one the route takes`;
  // The API routes are called with the session's cookie; a link to a webhook URL is for the provider.
  const callsWithSession = r.table === 'ApiRoutes' || r.method === 'GET';
  const scheme = SCHEME[r.session];
  if (callsWithSession && op.security.length && !(scheme && op.security.includes(scheme)))
    return `${r.method} ${pattern} does not take the ${r.session} session (${op.security.join(', ')})`;
  return null;
}

describe('the dashboard’s route table', () => {
  const routes = dashboardRoutes();

  test('is read whole from api-types.ts', () => {
    expect(routes.length).toBeGreaterThan(80);
    const keys = new Set(routes.map((r) => `${r.table} ${r.session} ${r.method}`));
    for (const key of [
      'ApiRoutes operator GET',
      'ApiRoutes operator POST',
      'ApiRoutes operator PATCH',
      'ApiRoutes operator PUT',
      'ApiRoutes operator DELETE',
      'ApiRoutes partner GET',
      'ApiRoutes partner POST',
      'ApiRoutes partner PUT',
      'ApiRoutes partner DELETE',
      'ApiLinks operator GET',
      'ApiLinks operator POST',
      'ApiLinks partner GET',
    ])
      expect(keys, key).toContain(key);
    // Unions are spelled out: each webhook provider's connect route, each list.
    expect(routes.map((r) => `${r.method} ${r.pattern}`)).toEqual(
      expect.arrayContaining([
        'PUT /api/v1/admin/programs/${number}/providers/payos',
        'GET /api/v1/admin/programs/${number}/parked-refunds',
        'GET /api/v1/admin/programs/${number}/payout-runs/${number}/file?format=wise_csv',
      ]),
    );
  });

  test('every path of it is a route the server registers, for that session', () => {
    const app = createHttpApp(h.ctx);
    const unserved = routes.flatMap((r) => {
      const why = problem(app, r);
      return why ? [`${r.session} ${r.method} ${r.pattern}: ${why}`] : [];
    });
    expect(unserved).toEqual([]);
  });

  test('the check refuses what the server does not serve', () => {
    const app = createHttpApp(h.ctx);
    const route = (session: string, method: string, path: string, table: DashboardRoute['table'] = 'ApiRoutes') =>
      problem(app, { table, session, method, pattern: path, path, literalQuery: path.includes('?') });
    expect(route('operator', 'GET', '/api/v1/admin/programs/1/keys')).toBe(
      'GET /api/v1/admin/programs/:id/:list: parameter list=keys is not one the route takes',
    );
    expect(route('operator', 'POST', '/api/v1/admin/programs/1/keys/1/revoke')).toBe('no route');
    expect(route('operator', 'DELETE', '/api/v1/admin/programs/1/partners/1')).toBe('no route');
    expect(route('operator', 'PUT', '/api/v1/admin/programs/1/providers/square')).toMatch(/provider=square/);
    expect(route('partner', 'GET', '/api/v1/partner/exports/sales.csv', 'ApiLinks')).toMatch(/kind=sales/);
    expect(route('operator', 'GET', '/api/v1/admin/programs/1/payout-runs/1/file?format=pdf', 'ApiLinks')).toMatch(
      /query \?format=pdf/,
    );
    expect(route('operator', 'GET', '/api/v1/partner/me')).toMatch(/does not take the operator session/);
    expect(route('operator', 'GET', '/api/v1/admin/programs/1/sales')).toBeNull();
  });
});
