import { request, type Dispatcher } from 'undici';
import type { EventPoster } from '../core/outbound/deliver-event.ts';
import { excerptOf, RESPONSE_EXCERPT_BYTES } from '../core/outbound/deliver-event.ts';

/**
 * POSTs signed events through `dispatcher` (egress/guarded-dispatcher.ts: every connection goes to
 * an address the URL guard checked), aborted after `timeoutMs` (the whole exchange: resolution,
 * connection, headers and the body excerpt). Redirects are not followed (a 3xx is a failed
 * attempt). Only the first RESPONSE_EXCERPT_BYTES of the answer are read.
 */
export function createEventPoster(dispatcher: Dispatcher): EventPoster {
  return async ({ url, headers, body, timeoutMs }) => {
    const res = await request(url, {
      method: 'POST',
      headers: { ...headers, 'user-agent': 'partner-conversion-tracker-events/1' },
      body,
      dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        // Leaving the loop early destroys the body: the rest is never read.
        if (size >= RESPONSE_EXCERPT_BYTES) break;
      }
    } catch {
      // The status decides; an unreadable body is only a missing excerpt.
    }
    // `stream: true`: a character cut at the limit is left out, not decoded as U+FFFD.
    const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES), { stream: true });
    return { status: res.statusCode, body: excerptOf(text) };
  };
}
