/**
 * The port of the outbound URL guard (docs/outbound-events.md, URL guard): core states when a URL
 * is checked and what a refusal means; src/egress resolves hosts and classifies their addresses.
 */

/**
 * An outbound URL whose destination the guard refuses: a private, loopback, link-local, shared,
 * multicast or otherwise non-public address (or a name resolving to one), or plain `http://` to a
 * host not on `OUTBOUND_ALLOW_HOSTS`. No connection was made. `reason` is for people: it names the
 * host and the kind of address, never what an internal name resolved to.
 */
export class OutboundTargetRefused extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`refused: ${reason}`);
    this.name = 'OutboundTargetRefused';
    this.reason = reason;
  }
}
