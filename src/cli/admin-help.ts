/** The admin CLI's usage text (admin.ts). */
export const HELP = `Usage: npm run admin -- <command> [arguments] [--url URL] [--token TOKEN] [--json] [--field PATH]

  programs:create --name NAME [--domain HOST] [--landing-url URL] [--commission-rate-bps N] [--cookie-duration-days N]
                  [--attribution-window-days N] [--hold-period-days N] [--recurring-policy one_time|months|lifetime]
                  [--recurring-months N] [--rate-limit-per-minute N] [--platform-fee-bps N]
                  [--provider-amount-includes-tax true|false] [--coupon-precedence click|coupon]
                  [--attribution-model last_click|first_click]
  programs:list | programs:show ID | programs:update ID [same flags as create]
  keys:issue PROGRAM [--mode live|test]         prints the key once
  keys:list PROGRAM | keys:retire PROGRAM KEY [--rotate-by ISO] | keys:rotate PROGRAM KEY [--grace-days N]
  mcp-tokens:issue PROGRAM [--scope read|write] [--name LABEL]   an MCP token for an assistant, printed once
  mcp-tokens:list PROGRAM | mcp-tokens:revoke PROGRAM TOKEN_ID   (docs/mcp.md)
  partners:create PROGRAM --code CODE --name NAME [--email EMAIL]   prints the partner's referral link
  partners:list PROGRAM [--limit N] [--offset N]  each partner with its referral link
  partners:statement PROGRAM PARTNER            per currency: credits, reversals, payouts, balance (reconciled),
                                                unpaid commissions, owed back; ledger and payouts (alias partners:account)
  partners:invite PROGRAM PARTNER               one-time portal invite link (expires after INVITE_TTL_HOURS)
  codes:create PROGRAM PARTNER --code CODE [--provider-ids ID,ID]   a partner's coupon code (and the providers'
                                                ids of the same discount); sales carrying it are the partner's
  codes:list PROGRAM [--partner-id N] | codes:disable PROGRAM CODE_ID
  groups:create PROGRAM --name NAME [--rules-file FILE]   a partner group; FILE holds its reward rules (JSON)
  groups:update PROGRAM GROUP [--name NAME] [--rules-file FILE|null] | groups:list PROGRAM
  groups:assign PROGRAM PARTNER GROUP|none      moves a partner into a group (none: the program's rules)
  rules:set PROGRAM --rules-file FILE|null      the program's reward rules (JSON; null: commission_rate_bps alone)
  list PROGRAM KIND [--limit N] [--offset N | --before ID] [--status S] [--partner-id N] [--held true]
       KIND: clicks customers sales commissions refunds partners api-keys notifications webhook-events test-events platform-fees
             provider-connections attribution-conflicts payouts parked-refunds partner-codes
             partner-groups
  import:SOURCE --program ID --api-key-env VAR [--base-url URL] [--dry-run]   brings partners, customers,
                                                commissions and payouts from SOURCE (rewardful, tolt,
                                                firstpromoter, partnerstack, dub); prints the report. --base-url must
                                                pass the outbound URL guard (public https, or a host on
                                                OUTBOUND_ALLOW_HOSTS)
  import:rewardful --program ID --csv-dir DIR [--dry-run]   from Rewardful's import sheet DIR/affiliates.csv:
                                                affiliates, tokens, payout emails, customers
  commissions:approve PROGRAM ID                credits it to the partner balance
  commissions:release PROGRAM ID | commissions:reject PROGRAM ID   a commission held by fraud rules:
                                                credit it (once), or reverse it (nothing was credited)
  commissions:reverse PROGRAM ID [--amount-cents N] [--reason TEXT]   takes back a reward per lead (all
                                                that remains without --amount-cents), as a refund would
  list PROGRAM commissions --held true          the commissions held for review

  Payouts: a payout pays whole credited commissions of one partner and currency, oldest first,
  netting what the partner owes back (refunds of commissions already paid); each commission is
  marked paid with the payout id and the balance falls by exactly the amount paid.
  payouts:open PROGRAM PARTNER --currency USD [--amount-cents N]   request (a withdrawal); default: all available
  payouts:pay PROGRAM PAYOUT | payouts:cancel PROGRAM PAYOUT | payouts:show PROGRAM PAYOUT
  payouts:list PROGRAM [--partner-id N] [--status open|processing|paid|failed|cancelled]
  commissions:pay PROGRAM ID                    pays that one commission through a payout of its own
  withdrawals:open, withdrawals:pay             aliases of payouts:open, payouts:pay
  payouts:run PROGRAM --currency USD [--rail manual|paypal|wise|stripe_connect]   a payout run (processing payouts)
  payouts:file PROGRAM RUN [--format paypal_csv|paypal_json|wise_csv] > file   the run's bulk-payment file
  payouts:transfers PROGRAM RUN                 Stripe Connect: make the run's transfers (again: never twice)
  payouts:confirm PROGRAM PAYOUT | payouts:confirm-run PROGRAM RUN   the rail paid: mark paid
  payouts:fail PROGRAM PAYOUT --reason TEXT     the rail refused: failed, amount back in the balance
  providers:connect PROGRAM PROVIDER [--label live|test] --secret-env VAR   (or the secret on stdin)
                  connects with exactly this one secret, replacing any others
  providers:show PROGRAM PROVIDER               the connection; of its API key only whether one is set and its last 4
  providers:api-key PROGRAM lemonsqueezy --key-env VAR (or on stdin) | --clear   the store's API key, used to
                                                find the discount code of a discounted order (stored sealed)
  providers:api-key PROGRAM stripe --key-env VAR | --clear   a restricted key: Invoices read (a basil invoice's
                                                PaymentIntent), Transfers write (Stripe Connect payout runs)
  rollups:check PROGRAM [--days N | --from D --to D]   the overview's daily rollups against the raw rows
                                                (consistent: true, or each day and measure that differs)
  secrets:reseal                                re-seals every stored secret (API keys, event endpoint secrets)
                                                with the first key of DATA_ENCRYPTION_KEYS, after a key
                                                rotation; seals event endpoint secrets stored before sealing
  ledger:verify PROGRAM [--json]                recomputes the ledger from sales, refunds and payouts; the first
                                                difference per partner (exit 0 clean, 1 differences, 2 error)
  statement-keys:rotate                         a new key signs statement checkpoints; the old one is retired
                                                and stays published (/.well-known/statement-keys.json)
  secrets:add PROGRAM PROVIDER --label live|test [--expires-at ISO] --secret-env VAR   (or on stdin)
  secrets:list PROGRAM PROVIDER                 id, label, created, expiry, fingerprint (never the secret)
  secrets:expire PROGRAM PROVIDER ID [--at ISO] stops verifying with it at ISO (default now)
  secrets:remove PROGRAM PROVIDER ID
       PROVIDER: stripe paddle lemonsqueezy polar dodo creem sepay payos
  webhooks:replay PROGRAM [--id INBOX_ID]       replays one (not processed) or all failed webhook events

  Outbound events (signed webhooks to your endpoints; docs/outbound-events.md):
  events:endpoints:create PROGRAM --endpoint-url URL [--types sale.created,commission.created]
                                                prints the whsec_ signing secret once (default: all types)
  events:endpoints:list PROGRAM | events:endpoints:update PROGRAM ENDPOINT [--endpoint-url URL]
                  [--types T,T] [--enabled true|false]   enabling clears an automatic disable
  events:endpoints:rotate PROGRAM ENDPOINT      new secret (printed once); old and new both sign until
  events:endpoints:expire-old PROGRAM ENDPOINT  ... the old one is expired
  events:deliveries PROGRAM ENDPOINT [--status pending|delivered|failed] [--limit N] [--before ID]
  events:replay PROGRAM DELIVERY                sends a delivery again (same webhook-id)

The server URL comes from --url or ADMIN_URL (default http://localhost:$PORT or 3000); the token from
--token, ADMIN_TOKEN, or the embedded server's DATA_DIR/admin-token file.
Output: tables in a terminal; JSON with --json or when the output is not a terminal (pipes, scripts);
--field PATH prints one value of the answer (program.id, key), e.g. PROGRAM=$(npm run -s admin -- ... --field program.id).
Referral links use the program's landing URL or domain, else the demo page at PUBLIC_BASE_URL or the server URL.`;
