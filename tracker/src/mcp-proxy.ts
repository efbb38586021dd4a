/**
 * `tracker mcp`: the service's MCP server for assistants that start a local command (stdio). A
 * relay, not a second server: every JSON-RPC message read on stdin is posted to the service's
 * `/mcp` with the MCP token, and every answer is written to stdout, so the tools, their schemas
 * and the token's scope are the service's own. Diagnostics go to stderr (stdout is the protocol).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export type McpProxyOptions = {
  /** The service's `/mcp` endpoint. */
  url: URL;
  /** An MCP token of one program (never printed). */
  token: string;
  /** A diagnostic line for stderr. */
  warn: (line: string) => void;
  stdin?: NodeJS.ReadableStream & { once(event: 'end', fn: () => void): unknown };
  stdout?: NodeJS.WritableStream;
};

/** The JSON-RPC error a relayed request gets when the service could not answer it. */
function relayError(message: JSONRPCMessage, err: Error): JSONRPCMessage | null {
  if (!('method' in message) || !('id' in message)) return null;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: { code: -32000, message: `The service did not answer: ${err.message}` },
  };
}

/** Relays until stdin ends (the assistant closed the client). */
export async function runMcpProxy(o: McpProxyOptions): Promise<void> {
  const stdin = o.stdin ?? process.stdin;
  const remote = new StreamableHTTPClientTransport(o.url, {
    requestInit: { headers: { authorization: `Bearer ${o.token}` } },
  });
  const local = new StdioServerTransport(
    stdin as NodeJS.ReadStream,
    (o.stdout ?? process.stdout) as NodeJS.WriteStream,
  );
  local.onmessage = (message) => {
    remote.send(message).catch((err: Error) => {
      const answer = relayError(message, err);
      if (answer) void local.send(answer);
      else o.warn(`mcp: could not relay a message: ${err.message}`);
    });
  };
  remote.onmessage = (message) => {
    // The negotiated version goes on every later request (the protocol's MCP-Protocol-Version header).
    const result = 'result' in message ? (message.result as { protocolVersion?: unknown }) : null;
    if (typeof result?.protocolVersion === 'string') remote.setProtocolVersion(result.protocolVersion);
    void local.send(message);
  };
  remote.onerror = (err) => o.warn(`mcp: ${err.message}`);
  await remote.start();
  const ended = new Promise<void>((resolve) => stdin.once('end', resolve));
  await local.start();
  await ended;
  await Promise.all([local.close(), remote.close()]);
}
