import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server (the shared Redis or PostgreSQL) that can be frozen: what a
 * network partition or a stopped server (SIGSTOP) looks like to a client. Connections stay open
 * (new ones are still accepted), bytes sent either way are held, nothing answers and no error
 * arrives; `thaw` delivers what was held, in order, as a resumed server would. A connection its
 * client closes meanwhile is closed on the server's side too, and what it had sent is dropped. The
 * server behind it is never paused, so other test files sharing it are not affected.
 */
export type FreezableProxy = {
  /** The target's URL (scheme, user, database) with the proxy's address: `redis://127.0.0.1:<port>`. */
  url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
};

const DEFAULT_PORTS: Record<string, number> = { 'redis:': 6379, 'postgres:': 5432, 'postgresql:': 5432 };

export async function createFreezableProxy(targetUrl: string): Promise<FreezableProxy> {
  const target = new URL(targetUrl);
  let frozen = false;
  const pipes: Array<{ flush(): void; sockets: Socket[] }> = [];
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || DEFAULT_PORTS[target.protocol]), target.hostname);
    const held: Array<[Socket, Buffer]> = [];
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (frozen) held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    pipes.push({
      sockets: [client, upstream],
      flush() {
        for (const [to, chunk] of held.splice(0)) if (!to.destroyed) to.write(chunk);
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const p of pipes) p.flush();
    },
    async close() {
      for (const p of pipes) for (const s of p.sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
