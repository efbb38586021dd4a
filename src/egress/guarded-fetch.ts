import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { OutboundTargetRefused } from '../core/outbound/outbound-target.ts';
import type { SourceFetch } from '../importers/reader-options.ts';

/**
 * `fetch` through `dispatcher` (guarded-dispatcher.ts): every connection goes to an address the
 * outbound URL guard checked, so an importer's base URL that resolves to a refused address later
 * (DNS rebinding) gets no connection. A redirect is followed through the same dispatcher, so
 * its target is checked too. A refusal is thrown as the guard's OutboundTargetRefused.
 */
export function createGuardedFetch(dispatcher: Dispatcher): SourceFetch {
  return async (url, init) => {
    try {
      return (await undiciFetch(url, { ...init, dispatcher })) as unknown as Response;
    } catch (err) {
      // fetch says only "fetch failed": the guard's refusal is the reason to tell.
      const cause = (err as Error).cause;
      throw cause instanceof OutboundTargetRefused ? cause : err;
    }
  };
}
