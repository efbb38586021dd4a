/**
 * `ledger:verify`'s report as people read it (or the answer's JSON for scripts), and its exit
 * status: 0 clean, 1 differences found (errors: 2, in admin.ts).
 */
type Difference = { partner_id: number | null; message: string };
type Report = {
  program_id: number;
  clean: boolean;
  differences: number;
  first_differences: Difference[];
  partners: number;
  rows: number;
  elapsed_ms: number;
};

export function printLedgerReport(answer: unknown, json: boolean): number {
  const r = answer as Report;
  if (json) console.log(JSON.stringify(answer, null, 2));
  else {
    const scope = `program ${r.program_id}: ${r.partners} partners, ${r.rows} rows read in ${r.elapsed_ms} ms`;
    if (r.clean) console.log(`CLEAN: ${scope}; the ledger rebuilds to the stored one`);
    else {
      console.log(`DIFFERENCES: ${scope}; ${r.differences} found, the first of each partner:`);
      for (const d of r.first_differences)
        console.log(`  ${d.partner_id === null ? 'no partner' : `partner ${d.partner_id}`}: ${d.message}`);
    }
  }
  return r.clean ? 0 : 1;
}
