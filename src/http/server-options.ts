import type { Config } from '../config.ts';

/**
 * Node HTTP server settings of every listener: a request must arrive whole within
 * REQUEST_TIMEOUT_MS and its headers within HEADERS_TIMEOUT_MS, else Node answers 408 and closes
 * the connection (its defaults, 300 s and 60 s, let one slow client hold a socket for minutes).
 * Node checks the deadlines on an interval (30 s by default), so it is kept well under them.
 */
export function nodeServerOptions(config: Pick<Config, 'REQUEST_TIMEOUT_MS' | 'HEADERS_TIMEOUT_MS'>) {
  return {
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    headersTimeout: config.HEADERS_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(1_000, Math.floor(config.HEADERS_TIMEOUT_MS / 4)),
  };
}
