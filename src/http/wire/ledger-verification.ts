/** The ledger verification's answers (routes/admin-ledger-verify.ts). */
import { z } from 'zod';

const int = z.number().int();
const difference = z.strictObject({
  partner_id: int.nullable().meta({ description: 'Whose money (null: no partner)' }),
  table: z.string().meta({ description: 'The table of the row that differs' }),
  row_id: int.nullable().meta({ description: 'The row (null: a row that should exist and does not)' }),
  field: z.string(),
  expected: z.string().meta({ description: 'What the recorded inputs give' }),
  stored: z.string().meta({ description: 'What is stored' }),
  message: z.string().meta({ description: 'The difference in plain words' }),
});
export const ledgerVerifyBody = z.strictObject({
  program_id: int,
  verified_at: z.iso.datetime(),
  clean: z.boolean(),
  differences: int.meta({ description: 'Every difference found' }),
  first_differences: z.array(difference).meta({ description: 'The first difference of each partner' }),
  partners: int,
  rows: int.meta({ description: 'Rows read' }),
  elapsed_ms: int,
});
export const lastVerificationBody = z.strictObject({
  verification: z
    .strictObject({
      verified_at: z.iso.datetime(),
      clean: z.boolean(),
      differences: int,
      first_difference: z.string().nullable(),
    })
    .nullable()
    .meta({ description: 'The last verification (null: never verified)' }),
});

export type LedgerVerificationBody = z.infer<typeof lastVerificationBody>;
