import { Agent, buildConnector } from 'undici';
import type { OutboundGuard } from './outbound-guard.ts';

/**
 * An undici dispatcher whose every new connection goes to an address the guard checked: the
 * host is resolved once per connection and the socket opened to that address (the TLS name and
 * certificate check stay the URL's host), so a name cannot resolve to one address for the check
 * and another for the connection. A refusal fails the request before any socket is opened.
 */
export function createGuardedDispatcher(guard: OutboundGuard): Agent {
  const connect = buildConnector({});
  return new Agent({
    connect(opts, callback) {
      guard.resolve(opts.hostname, opts.protocol).then(
        (addresses) => connect({ ...opts, hostname: addresses[0]!.address }, callback),
        (err: Error) => callback(err, null),
      );
    },
  });
}
