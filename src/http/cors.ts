import type { Middleware } from 'h3';
import { stageHeader } from './route.ts';

/**
 * CORS for the browser-facing tracking endpoints, on every answer (errors too): any origin may
 * call; no credentials.
 */
export const trackingCors: Middleware = (event) => {
  const origin = event.req.headers.get('origin');
  if (!origin) return;
  stageHeader(event, 'access-control-allow-origin', origin);
  stageHeader(event, 'access-control-allow-methods', 'POST, OPTIONS');
  stageHeader(event, 'access-control-allow-headers', 'content-type, authorization');
  stageHeader(event, 'access-control-max-age', '600');
  stageHeader(event, 'vary', 'Origin');
};
