/**
 * Polls `fn` until it returns without throwing (and not `undefined`/`false`), or rethrows its last
 * error after `timeoutMs`. Webhooks are processed asynchronously by the queue, so tests wait on
 * the database state the admin API reports instead of sleeping for a fixed time.
 */
export async function waitFor<T>(
  fn: () => Promise<T> | T,
  timeoutMs = 15_000,
  intervalMs = 20,
): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
      last = new Error(`waitFor: condition returned ${String(value)}`);
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) throw last;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
