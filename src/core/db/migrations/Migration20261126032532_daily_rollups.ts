import { Migration } from '@mikro-orm/migrations';

/**
 * Daily rollups (rollups.ts): the rollup tables, the triggers that mark a rolled day dirty when a
 * raw row of it changes, and the (program, day) indexes the rollup sweeper and the raw part of a
 * read use.
 *
 * The four indexes are built with a plain `create index`, which blocks writes to the table while it
 * runs (about a second per million rows). On a large live database, build them first with
 * `create index concurrently if not exists` under the same names (docs/performance.md); these
 * statements then skip them.
 */
export class Migration20261126032532_daily_rollups extends Migration {
  override name = 'Migration20261126032532_daily_rollups';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "daily_rollup" ("program_id" int not null, "day" date not null, "partner_id" int not null, "currency" varchar(3) not null, "clicks" bigint not null default '0', "leads" bigint not null default '0', "sales" bigint not null default '0', "revenue_cents" bigint not null default '0', "refunded_cents" bigint not null default '0', "commission_cents" bigint not null default '0', primary key ("program_id", "day", "partner_id", "currency"));`,
    );
    this.addSql(
      `create index "daily_rollup_program_id_partner_id_day_index" on "daily_rollup" ("program_id", "partner_id", "day");`,
    );
    this.addSql(
      `create table "rollup_dirty" ("program_id" int not null, "day" date not null, primary key ("program_id", "day"));`,
    );
    this.addSql(`create table "rollup_state" ("id" int not null, "rolled_through" date null, primary key ("id"));`);
    this.addSql(`insert into "rollup_state" ("id", "rolled_through") values (1, null);`);
    this.addSql(
      `create index if not exists "click_program_id_created_at_index" on "click" ("program_id", "created_at");`,
    );
    this.addSql(
      `create index if not exists "customer_program_id_created_at_index" on "customer" ("program_id", "created_at");`,
    );
    this.addSql(
      `create index if not exists "sale_program_id_received_at_index" on "sale" ("program_id", "received_at");`,
    );
    this.addSql(
      `create index if not exists "commission_program_id_created_at_index" on "commission" ("program_id", "created_at");`,
    );

    // Marks (program, UTC day) dirty for every row of the statement that lands on a rolled day:
    // inserted or deleted, or updated in one of the columns the rollup reads (TG_ARGV[1]), on the
    // row's old and new day (TG_ARGV[0] is the day column). One statement-level trigger per table
    // and operation, over the statement's transition tables: one extra query per statement, none
    // per row; rows of today (every live write) stop there. A row of an earlier day not rolled yet
    // (a late write) waits for a roll in progress (the sweeper holds the state row), so a day is
    // never rolled without a row committed beside it. Click retention deletes with
    // `rollup.pruning` set: the rollup keeps counting the clicks it removes.
    this.addSql(`create function rollup_mark_dirty() returns trigger language plpgsql as $$
declare
  through date;
  first_day date;
  cond text;
  days text;
begin
  if current_setting('rollup.pruning', true) = 'on' then return null; end if;
  if TG_OP = 'UPDATE' then
    select string_agg(format('o.%1$I is distinct from n.%1$I', c), ' or ') into cond
      from unnest(string_to_array(TG_ARGV[1], ',')) as c;
    days := format(
      'select r.program_id, r.day from old_rows o join new_rows n using (id), '
      || 'lateral (values (o.program_id, (o.%1$I at time zone ''UTC'')::date), (n.program_id, (n.%1$I at time zone ''UTC'')::date)) as r (program_id, day) '
      || 'where %2$s', TG_ARGV[0], cond);
  else
    days := format('select program_id, (%1$I at time zone ''UTC'')::date as day from %2$I',
      TG_ARGV[0], case when TG_OP = 'INSERT' then 'new_rows' else 'old_rows' end);
  end if;
  execute format('select min(day) from (%s) d', days) into first_day;
  if first_day is null then return null; end if;
  select rolled_through into through from rollup_state where id = 1;
  if through is null or first_day >= through then
    if first_day >= (now() at time zone 'UTC')::date then return null; end if;
    select rolled_through into through from rollup_state where id = 1 for share;
    if through is null or first_day >= through then return null; end if;
  end if;
  execute format('insert into rollup_dirty (program_id, day) select distinct program_id, day from (%s) d '
    || 'where day < $1 on conflict do nothing', days) using through;
  return null;
end $$;`);
    for (const [table, day, columns] of [
      ['click', 'created_at', 'program_id,partner_id,created_at'],
      ['customer', 'created_at', 'program_id,partner_id,created_at'],
      ['sale', 'received_at', 'program_id,partner_id,currency,amount_cents,refunded_cents,received_at'],
      ['commission', 'created_at', 'program_id,partner_id,currency,amount_cents,reversed_cents,created_at'],
    ] as const) {
      const fn = `execute function rollup_mark_dirty('${day}', '${columns}')`;
      this.addSql(
        `create trigger "${table}_rollup_insert" after insert on "${table}" referencing new table as new_rows for each statement ${fn};`,
      );
      this.addSql(
        `create trigger "${table}_rollup_update" after update on "${table}" referencing old table as old_rows new table as new_rows for each statement ${fn};`,
      );
      this.addSql(
        `create trigger "${table}_rollup_delete" after delete on "${table}" referencing old table as old_rows for each statement ${fn};`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const table of ['click', 'customer', 'sale', 'commission']) {
      for (const op of ['insert', 'update', 'delete'])
        this.addSql(`drop trigger "${table}_rollup_${op}" on "${table}";`);
    }
    this.addSql(`drop function rollup_mark_dirty();`);
    this.addSql(`drop table if exists "daily_rollup" cascade;`);
    this.addSql(`drop table if exists "rollup_dirty" cascade;`);
    this.addSql(`drop table if exists "rollup_state" cascade;`);
    this.addSql(`drop index "click_program_id_created_at_index";`);
    this.addSql(`drop index "customer_program_id_created_at_index";`);
    this.addSql(`drop index "sale_program_id_received_at_index";`);
    this.addSql(`drop index "commission_program_id_created_at_index";`);
  }
}
