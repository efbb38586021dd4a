import type { H3, H3Event } from 'h3';
import type { RouteContext } from '../http-context.ts';
import { AppError } from '../../core/shared/errors.ts';
import { readJson } from '../read-json.ts';
import { route } from '../route.ts';
import { MAX_ROW_ID } from '../validate.ts';
import { requireOperator } from '../session-auth.ts';
import { requirePermission, routePermission, UNAUDITED_WRITES } from '../admin-permissions.ts';
import { audited, type BeforeReader } from '../admin-audit.ts';
import type { CoreDeps } from '../../core/deps.ts';
import { enqueueEventDeliveries } from '../../queue/enqueue-events.ts';

export const ADMIN_PREFIX = '/api/v1/admin';

/** Registers an admin route (under the admin prefix, behind the admin token or the operator session). */
export type AdminOn = (
  method: 'get' | 'post' | 'patch' | 'put' | 'delete',
  path: string,
  fn: (e: H3Event) => Promise<object | Response>,
  /** For a write: reads the state it changes, for the audit entry's `before`. */
  before?: BeforeReader,
) => void;

/** What every admin resource's routes are registered with. */
export type AdminHelpers = {
  on: AdminOn;
  /** A positive integer path parameter, else 400 `invalid_request`. */
  num: (e: H3Event, name: string) => number;
  /** The JSON body; an empty body (`content-length: 0`) is `{}`. */
  body: (e: H3Event) => Promise<unknown>;
  /**
   * Runs a use-case that may write outbound events and enqueues the deliveries it returned
   * (`deliveryIds`, committed); an enqueue that fails leaves them to the outbox sweeper, never
   * fails the call.
   */
  emitting: <T extends { deliveryIds: readonly number[] }>(fn: (deps: CoreDeps) => Promise<T>) => Promise<T>;
};

export function createAdminHelpers(app: H3, ctx: RouteContext): AdminHelpers {
  const body = async (event: H3Event) =>
    event.req.headers.get('content-length') === '0' ? {} : readJson(event, ctx.config.BODY_LIMIT_BYTES);
  const num = (event: H3Event, name: string) => {
    const v = Number(event.context.params?.[name]);
    if (!Number.isSafeInteger(v) || v <= 0 || v > MAX_ROW_ID)
      throw new AppError('invalid_request', `${name} must be a positive integer`);
    return v;
  };
  // Every route: its caller, then the permission its entry in ADMIN_ROUTE_PERMISSIONS requires;
  // every write is audited (admin-audit.ts), so no route can change state unrecorded.
  const on: AdminOn = (method, path, fn, before) => {
    const guard = [requireOperator(ctx), requirePermission(ctx, routePermission(method, path))];
    const write = method !== 'get' && !UNAUDITED_WRITES.has(`${method} ${path}`);
    const handler = write ? audited(ctx, `${method.toUpperCase()} ${path}`, fn, before) : fn;
    app[method](`${ADMIN_PREFIX}${path}`, route(guard, handler));
  };
  const emitting = async <T extends { deliveryIds: readonly number[] }>(
    fn: (deps: CoreDeps) => Promise<T>,
  ): Promise<T> => {
    const result = await fn(ctx.deps());
    await enqueueEventDeliveries(ctx, result.deliveryIds);
    return result;
  };
  return { on, num, body, emitting };
}
