// The currencies this deployment accepts (its CURRENCIES setting), read from the server once and
// shared by every form that asks for an amount per currency; the contract's three until then.
import { ref } from 'vue';
import { admin } from './api.ts';
import { CURRENCIES } from './vocabulary.ts';

export const acceptedCurrencies = ref<string[]>([...CURRENCIES]);
let loading: Promise<void> | null = null;

/** Reads the accepted currencies (once per page load; again after a failure). */
export function loadCurrencies(): Promise<void> {
  loading ??= admin
    .get('/api/v1/admin/currencies')
    .then((b) => {
      acceptedCurrencies.value = b.currencies.map((c) => c.code);
    })
    .catch((err: unknown) => {
      loading = null;
      throw err;
    });
  return loading;
}

/** An empty amount per accepted currency, then the ones a stored document names (kept even if no longer accepted). */
export function amountFields(
  stored: Record<string, number | undefined> | undefined,
  show: (cents: number, c: string) => string,
) {
  const out: Record<string, string> = Object.fromEntries(acceptedCurrencies.value.map((c) => [c, '']));
  for (const [c, cents] of Object.entries(stored ?? {})) if (cents !== undefined) out[c] = show(cents, c);
  return out;
}
