import type { ImportSourceName } from '../../src/core/imports/import-records.ts';
import type { ImportCounts } from '../../src/core/entities/import-run.ts';
import type { Fixture, Harness } from '../helpers/harness.ts';

/** A fake of a source's API, serving its fixture. */
export type FakeSource = { baseUrl: string; apiKey: string; close(): Promise<void> };

/** A partner as an import of the fixture must leave it. */
export type ExpectedPartner = {
  email: string;
  /** Its partner codes (as the source spells them), sorted. */
  codes: string[];
  group: string | null;
  /** Balance per currency, minor units (the source's due amounts). */
  balances: Record<string, number>;
  /** Its commissions as `status:amount`, sorted. */
  commissions: string[];
  /** The payment providers' customer ids of its customers, sorted. */
  customers: string[];
};

/** What each source's fixture module exports for the end-to-end import test. */
export type SourceExpectation = {
  source: ImportSourceName;
  start(): Promise<FakeSource>;
  /** Run once on the program before importing (a code another partner already holds, say). */
  prepare?(h: Harness, f: Fixture): Promise<void>;
  partners: ExpectedPartner[];
  counts: ImportCounts;
  /** The problem rows, by kind and source id. */
  problems: Array<{ of: string; sourceId: string | null }>;
  /** The balances that differ from the source's (the rows reported as problems), as `partnerSourceId:currency`. */
  mismatches: string[];
  /** An imported customer's Stripe id and its partner's email (a later renewal attributes to it); null: none. */
  stripeCustomer: { id: string; partnerEmail: string } | null;
};
