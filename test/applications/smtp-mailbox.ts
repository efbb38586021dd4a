/**
 * A real SMTP server for the email tests: the `smtp-server` package on 127.0.0.1 (no TLS, no
 * auth), every message parsed by `mailparser` into `received` once its data arrived. `stop()`
 * closes it (the service's sends then fail to connect); `start()` listens again on the same port.
 * `holdFirst`: the first message gets no answer until `release()` (its sender waits mid-send).
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export type Mailbox = {
  port: number;
  received: ParsedMail[];
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Answers the held message (250 OK). */
  release(): void;
};

export async function startMailbox(o: { holdFirst?: boolean } = {}): Promise<Mailbox> {
  const received: ParsedMail[] = [];
  let held: (() => void) | null = null;
  let server: SMTPServer | null = null;
  let port = 0;
  const start = async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, callback) {
        simpleParser(stream).then(
          (mail) => {
            received.push(mail);
            if (o.holdFirst && received.length === 1) held = () => callback();
            else callback();
          },
          (err: Error) => callback(err),
        );
      },
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.server.address() as { port: number }).port;
  };
  await start();
  return {
    get port() {
      return port;
    },
    get url() {
      return `smtp://127.0.0.1:${port}`;
    },
    received,
    start,
    release: () => held?.(),
    async stop() {
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = null;
    },
  };
}
