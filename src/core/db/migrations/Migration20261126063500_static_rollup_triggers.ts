import { Migration } from '@mikro-orm/migrations';

/**
 * The rollup dirty-marking triggers (daily_rollups migration) with one trigger function per table
 * and operation, written in static SQL, instead of one generic function that built its query from
 * its arguments on every statement. Static SQL in PL/pgSQL is planned once per session and reused;
 * the generic function's `execute` was planned on every call, which made the refund's two updates
 * (sale, commission) cost about a fifth more. What is marked is unchanged: for every row of the
 * statement on a rolled day, inserted, deleted, or updated in a column the rollup reads, its
 * (program, UTC day), old and new. Triggers are replaced in place (a catalog change, no rewrite).
 */
const TABLES = [
  ['click', 'created_at', ['program_id', 'partner_id', 'created_at']],
  ['customer', 'created_at', ['program_id', 'partner_id', 'created_at']],
  ['sale', 'received_at', ['program_id', 'partner_id', 'currency', 'amount_cents', 'refunded_cents', 'received_at']],
  [
    'commission',
    'created_at',
    ['program_id', 'partner_id', 'currency', 'amount_cents', 'reversed_cents', 'created_at'],
  ],
] as const;

const TRANSITION = {
  insert: 'referencing new table as new_rows',
  update: 'referencing old table as old_rows new table as new_rows',
  delete: 'referencing old table as old_rows',
} as const;

type Op = keyof typeof TRANSITION;

/** The statement's earliest day and the (program, day) pairs to mark, for one table and operation. */
function daysOf(op: Op, day: string, columns: readonly string[]): { first: string; marks: string } {
  const utc = (row: string) => `(${row}.${day} at time zone 'UTC')::date`;
  if (op !== 'update') {
    const rows = op === 'insert' ? 'new_rows' : 'old_rows';
    return {
      first: `select min(${utc('r')}) from ${rows} r`,
      marks: `select distinct r.program_id, ${utc('r')} from ${rows} r where ${utc('r')} < through`,
    };
  }
  const changed = `(${columns.map((c) => `o.${c}`).join(', ')}) is distinct from (${columns.map((c) => `n.${c}`).join(', ')})`;
  return {
    first: `select min(least(${utc('o')}, ${utc('n')})) from old_rows o join new_rows n using (id) where ${changed}`,
    marks:
      `select distinct d.program_id, d.day from old_rows o join new_rows n using (id), ` +
      `lateral (values (o.program_id, ${utc('o')}), (n.program_id, ${utc('n')})) as d (program_id, day) ` +
      `where ${changed} and d.day < through`,
  };
}

export class Migration20261126063500_static_rollup_triggers extends Migration {
  override name = 'Migration20261126063500_static_rollup_triggers';

  override up(): void | Promise<void> {
    for (const [table, day, columns] of TABLES) {
      for (const op of ['insert', 'update', 'delete'] as const) {
        const { first, marks } = daysOf(op, day, columns);
        const fn = `rollup_mark_dirty_${table}_${op}`;
        // `through`: the day before which the statement's rows must be marked, or null when none of
        // them (the earliest, `first_day`) lies on a rolled day. Rows of today (every live write)
        // stop at the first test; a row of an earlier day not rolled yet (a late write) waits for a
        // roll in progress (the sweeper holds the state row), so a day is never rolled without a
        // row committed beside it. Click retention deletes with `rollup.pruning` set: its
        // deletions are not marked.
        this.addSql(`create function ${fn}() returns trigger language plpgsql as $$
declare
  first_day date;
  through date;
begin
  if current_setting('rollup.pruning', true) = 'on' then return null; end if;
  first_day := (${first});
  if first_day is null then return null; end if;
  select rolled_through into through from rollup_state where id = 1;
  if through is null or first_day >= through then
    if first_day >= (now() at time zone 'UTC')::date then return null; end if;
    select rolled_through into through from rollup_state where id = 1 for share;
    if through is null or first_day >= through then return null; end if;
  end if;
  insert into rollup_dirty (program_id, day) ${marks} on conflict do nothing;
  return null;
end $$;`);
        this.addSql(`drop trigger "${table}_rollup_${op}" on "${table}";`);
        this.addSql(
          `create trigger "${table}_rollup_${op}" after ${op} on "${table}" ${TRANSITION[op]} for each statement execute function ${fn}();`,
        );
      }
    }
    this.addSql(`drop function rollup_mark_dirty();`);
  }

  override down(): void | Promise<void> {
    throw new Error(
      'static_rollup_triggers has no down migration: restore a backup taken before it, or re-run daily_rollups',
    );
  }
}
