import type { EntityManager } from '@mikro-orm/sql';

/**
 * Makes the database refuse to park refunds (a trigger raising SQLSTATE 57P03, "cannot connect
 * now": a real failure of the database, not a rejected value) until the returned function is
 * called. Rows whose refund would be parked fail and are retried; everything else runs.
 */
export async function refuseParking(em: EntityManager): Promise<() => Promise<void>> {
  await em.execute(`create or replace function refuse_parking() returns trigger language plpgsql as $$
    begin raise exception 'parking refunds is unavailable' using errcode = '57P03'; end $$`);
  await em.execute(
    'create trigger refuse_parking before insert or update on parked_refund for each row execute function refuse_parking()',
  );
  return async () => {
    await em.execute('drop trigger refuse_parking on parked_refund');
    await em.execute('drop function refuse_parking()');
  };
}
