/**
 * SePay (sepay.vn, bank-transfer notifications, "Tích hợp WebHooks"): `POST
 * {base}/api/v1/webhooks/sepay/<programId>` with one bank transaction, `{ id, gateway,
 * transactionDate, accountNumber, code, content, transferType, transferAmount, accumulated,
 * subAccount, referenceCode, description }`, authenticated by SePay's HMAC-SHA256 signature or
 * its `Authorization: Apikey <key>` (verify.ts). The event type is `transfer.<transferType>`: only `transfer.in` is handled;
 * outgoing transfers are `unhandled_event_type`.
 *
 * Transaction-id rule: a sale is recorded under `sepay_<id>` (SePay's transaction id, unique per
 * transaction and the key SePay tells receivers to deduplicate on); `referenceCode` (the bank's
 * reference) is kept as the provider payment id. The customer comes from the registered order
 * (POST /api/v1/track/checkout) named by `code` or written in `content`.
 *
 * Refunds: SePay reports bank transactions only; a refund is reported with POST
 * /api/v1/track/refund naming `sepay_<id>`. Test mode: no payload flag (SePay's sandbox,
 * my.dev.sepay.vn, sends the same shape); a `test` secret on the connection makes test traffic.
 * SePay expects `{"success": true}` in the answer, which this adapter's `answer` adds.
 */
import type { ProviderAdapter } from '../adapter.ts';
import { defineProviderAdapter } from '../define-adapter.ts';
import { asRecord, readId, readString } from '../read-payload.ts';
import { isoFromVietnamTime } from '../vietnam-time.ts';
import { transferIn } from './events/transfer-in.ts';
import { verifySepay } from './verify.ts';

export function createSepayAdapter(): ProviderAdapter {
  const adapter = defineProviderAdapter({
    name: 'sepay',
    handlers: { 'transfer.in': transferIn },
    verify: async (rawBody, headers, secret, now) => verifySepay(rawBody, headers, secret, now),
    readEnvelope(event) {
      const transfer = asRecord(event);
      const direction = readString(transfer?.transferType);
      const id = readId(transfer?.id);
      const eventType = direction ? `transfer.${direction}` : null;
      return {
        eventType,
        dedupeKey: eventType && id ? `${eventType}-${id}` : null,
        object: transfer,
        occurredAt: isoFromVietnamTime(transfer?.transactionDate),
      };
    },
  });
  return { ...adapter, answer: { success: true } };
}
