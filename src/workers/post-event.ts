import type { EventPoster } from '../core/outbound/deliver-event.ts';
import { RESPONSE_EXCERPT_CHARS } from '../core/outbound/deliver-event.ts';

/**
 * POSTs a signed event with `fetch`, aborted after `timeoutMs` (the whole exchange: connection,
 * headers and the body excerpt). Redirects are not followed (a 3xx is a failed attempt). Only the
 * start of the answer is read.
 */
export const postEvent: EventPoster = async ({ url, headers, body, timeoutMs }) => {
  const signal = AbortSignal.timeout(timeoutMs);
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'user-agent': 'partner-conversion-tracker-events/1' },
    body,
    redirect: 'manual',
    signal,
  });
  let text = '';
  try {
    const reader = res.body?.getReader();
    const decoder = new TextDecoder();
    while (reader && text.length < RESPONSE_EXCERPT_CHARS) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader?.cancel().catch(() => {});
  } catch {
    // The status decides; an unreadable body is only a missing excerpt.
  }
  return { status: res.status, body: text.slice(0, RESPONSE_EXCERPT_CHARS) };
};
