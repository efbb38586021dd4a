/**
 * The reader of Rewardful's import sheet alone (no database): the fixture's records in dependency
 * order, the column names earlier versions of Rewardful's article used read alike, a spreadsheet's
 * byte-order mark, CRLF line ends and quoted commas taken as CSV, and a file it cannot read refused.
 */
import { expect, test } from 'vitest';
import { createReader } from '../../src/importers/registry.ts';
import { rewardfulSheet } from './fixtures/rewardful/csv/expected.ts';
import { codesByPartner, countsByKind, inDependencyOrder, readAll } from './read-all.ts';

const read = (affiliates: string) => readAll(createReader('rewardful', { csv: { affiliates } }));

test('the fixture sheet gives each affiliate once with its tokens, each customer once, bad rows as problems', async () => {
  const records = await read(rewardfulSheet());
  expect(inDependencyOrder(records)).toBe(true);
  expect(countsByKind(records)).toEqual({ partner: 3, customer: 2, problem: 4 });
  expect(codesByPartner(records)).toEqual({
    'luke@rebels.example': ['luke', 'luke-sw'],
    'leia@rebels.example': ['leia'],
    'han@rebels.example': ['han'],
  });
  const luke = records.find((r) => r.kind === 'partner' && r.sourceId === 'luke@rebels.example');
  expect(luke).toMatchObject({ name: 'Luke Skywalker', payoutEmail: 'luke.pay@rebels.example', group: null });
  expect(records.filter((r) => r.kind === 'customer')).toEqual([
    expect.objectContaining({
      sourceId: 'cus_RwLukeCust01',
      partnerSourceId: 'luke@rebels.example',
      providerCustomerId: 'cus_RwLukeCust01',
      customerKey: null,
    }),
    expect.objectContaining({ sourceId: 'cus_RwLeiaCust02', partnerSourceId: 'leia@rebels.example' }),
  ]);
});

test("the article's earlier column names, a BOM, CRLF and quoted commas read as the current sheet does", async () => {
  const current = await read(
    'stripe_customer_id,first_name,last_name,email,paypal_email,token\n' +
      'cus_A1,"Solo, Han",,Han@Rebels.example,,han\n',
  );
  const older = await read(
    '\uFEFFImported ID,First Name,Last Name,Email,PayPal Email,Wise Email,Token\r\n' +
      'cus_A1,"Solo, Han",,han@rebels.example,,,han\r\n',
  );
  const oldest = await read(
    'Stripe Customer ID,Affiliate Email,Affiliate First Name,Affiliate Last Name,Affiliate PayPal Email,Token\n' +
      'cus_A1,han@rebels.example,"Solo, Han",,,han\n',
  );
  expect(current).toEqual([
    expect.objectContaining({ kind: 'partner', sourceId: 'han@rebels.example', name: 'Solo, Han', codes: ['han'] }),
    expect.objectContaining({ kind: 'customer', sourceId: 'cus_A1', partnerSourceId: 'han@rebels.example' }),
  ]);
  expect(older).toEqual(current);
  expect(oldest).toEqual(current);
});

test('a file without an email column, or not CSV, is refused when the reader is made', () => {
  expect(() => createReader('rewardful', { csv: { affiliates: 'first_name,token\nLuke,luke\n' } })).toThrow(
    'affiliates.csv has no email column',
  );
  expect(() => createReader('rewardful', { csv: { affiliates: 'email,token\n"luke@x.example,luke\n' } })).toThrow(
    'affiliates.csv is not a CSV file this import can read',
  );
  expect(() => createReader('rewardful', { csv: { referrals: 'email\n' } })).toThrow('takes one file, affiliates.csv');
  expect(() => createReader('rewardful', { apiKey: 'k', csv: { affiliates: 'email\n' } })).toThrow('not both');
});
