import { z } from 'zod';
import { parseSealingKeys } from './core/shared/sealed-secrets.ts';
import { parseAllowEntries } from './egress/allow-list.ts';
import { parseAcceptedCurrencies } from './core/shared/currencies.ts';

/** The value types of the settings (config.ts): each reads one variable's text or says why it cannot. */

export const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
export const perMinute = (fallback: number) => z.coerce.number().int().min(1).max(100_000_000).default(fallback);
/** `false` (0), `true` (1) or the number of trusted proxies in front of the service. */
export const proxyHops = z.union([
  z.enum(['true', 'false']).transform((v) => (v === 'true' ? 1 : 0)),
  z.coerce.number().int().min(0).max(10),
]);

/** A parser that throws a readable Error, as a zod transform reporting that message. */
const parsedBy = <T>(parse: (v: string) => T, text: z.ZodType<string, string | undefined> = z.string()) =>
  text.transform((v, c) => {
    try {
      return parse(v);
    } catch (err) {
      c.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

const items = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `keyid:base64-of-32-bytes`, comma-separated (sealed-secrets.ts). */
export const sealingKeys = parsedBy(parseSealingKeys);
/** Host names, addresses and CIDR ranges, comma-separated (egress/allow-list.ts). */
export const allowHosts = parsedBy(parseAllowEntries, z.string().default(''));
/** `all` or ISO 4217 codes, comma-separated; kept as text, read by currencies.ts. */
export const currencyList = z
  .string()
  .optional()
  .superRefine((v, c) => {
    try {
      parseAcceptedCurrencies(v);
    } catch (err) {
      c.addIssue({ code: 'custom', message: (err as Error).message });
    }
  });

/** `host:port` of each Redis sentinel, comma-separated; blank = none. */
export const sentinelList = z
  .string()
  .optional()
  .transform((v, c) => {
    if (!v?.trim()) return undefined;
    const out: Array<{ host: string; port: number }> = [];
    for (const item of items(v)) {
      const m = /^([^\s:]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(item);
      const port = Number(m?.[2]);
      if (!m || port < 1 || port > 65535) {
        c.addIssue({ code: 'custom', message: `"${item}" is not host:port (e.g. 10.0.0.5:26379)` });
        return z.NEVER;
      }
      out.push({ host: m[1]!.replace(/^\[|\]$/g, ''), port });
    }
    return out;
  });

/** http(s) origins (`https://api.example.com`), comma-separated. */
export const originList = z
  .string()
  .default('')
  .transform((v, c) => {
    const out: string[] = [];
    for (const item of items(v)) {
      const url = URL.canParse(item) ? new URL(item) : null;
      if (!url || !/^https?:$/.test(url.protocol) || url.origin + '/' !== url.href.replace(/\/*$/, '/')) {
        c.addIssue({ code: 'custom', message: `"${item}" is not an http(s) origin such as https://api.example.com` });
        return z.NEVER;
      }
      out.push(url.origin);
    }
    return out;
  });
