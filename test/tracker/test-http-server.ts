/**
 * A real HTTP server on a random port that records every request and answers what the test
 * configured. It stands in for the remote API (or a merchant's site) so the tracker packages'
 * wire behaviour can be checked; none of our own modules is replaced.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RecordedRequest = {
  method: string;
  path: string;
  url: URL;
  headers: IncomingHttpHeaders;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown;
};

export type Reply = {
  status?: number;
  /** A string is sent as is (with `contentType`, default text/html); anything else as JSON. */
  body?: unknown;
  contentType?: string;
};

export type Handler = Reply | ((req: RecordedRequest) => Reply | Promise<Reply>);

export type TestServer = {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Requests to a path, in arrival order (CORS preflights excluded). */
  calls(path: string): RecordedRequest[];
  on(method: string, path: string, handler: Handler): void;
  close(): Promise<void>;
};

export type TestServerOptions = {
  /** Answer CORS preflights and allow any origin, as the real API must for a cross-origin api base. */
  cors?: boolean;
};

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const routes = new Map<string, Handler>();
  const requests: RecordedRequest[] = [];

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const recorded = { method: req.method ?? 'GET', path: url.pathname, url, headers: req.headers, text, json };
    requests.push(recorded);

    if (options.cors) {
      res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
      res.setHeader('Vary', 'Origin');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, {
          'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
          'Access-Control-Allow-Headers': 'Content-Type',
          'Access-Control-Max-Age': '600',
        });
        res.end();
        return;
      }
    }

    const handler = routes.get(`${recorded.method} ${recorded.path}`);
    const reply =
      handler === undefined
        ? { status: 404, body: { error: { code: 'not_found', message: 'no route' } } }
        : typeof handler === 'function'
          ? await handler(recorded)
          : handler;
    const isText = typeof reply.body === 'string';
    const payload = reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
    res.writeHead(reply.status ?? 200, {
      'Content-Type': reply.contentType ?? (isText ? 'text/html; charset=utf-8' : 'application/json'),
      'Cache-Control': 'no-store',
    });
    res.end(payload);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    calls: (path) => requests.filter((r) => r.path === path && r.method !== 'OPTIONS'),
    on(method, path, handler) {
      routes.set(`${method} ${path}`, handler);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/** A port nothing listens on (bound, then released). */
export async function findClosedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
