import type { AppContext } from '../../app-context.ts';
import { json } from '../route.ts';

/** GET /healthz: the process is up. */
export const healthz = () => ({ status: 'ok' });

/** GET /readyz: the database and the queue answer (503 otherwise, for load balancers). */
export function readyz(ctx: AppContext) {
  return async () => {
    const [database, queue] = await Promise.all([
      ctx.db.em.fork().execute('select 1').then(() => true, () => false),
      ctx.queue.ping().catch(() => false),
    ]);
    const ok = database && queue;
    return json({ status: ok ? 'ready' : 'unavailable', database, queue: ctx.queue.kind, queue_ok: queue }, ok ? 200 : 503);
  };
}
