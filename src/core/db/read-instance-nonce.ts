import type { Db } from './orm.ts';
import { ServiceInstance } from '../entities/service-instance.ts';

/** The database's random nonce (written by its migrations); see `ServiceInstance`. */
export async function readInstanceNonce(db: Db): Promise<string> {
  const row = await db.em.fork().findOne(ServiceInstance, { id: 1 });
  if (!row) throw new Error('service_instance row missing: run the migrations (npm run migrate)');
  return row.nonce;
}
