/**
 * VietQR gateways (PayOS `transactionDateTime`, SePay `transactionDate`) send the bank's time as
 * `YYYY-MM-DD HH:mm:ss` without an offset: Vietnam's local time, UTC+7 all year.
 */
export function isoFromVietnamTime(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)$/.exec(value.trim());
  if (!m) return null;
  const date = new Date(`${m[1]}T${m[2]}+07:00`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
