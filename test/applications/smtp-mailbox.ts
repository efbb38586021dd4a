/**
 * A real SMTP server for the email tests: the `smtp-server` package on 127.0.0.1 (no TLS, no
 * auth), every accepted message parsed by `mailparser` into `received`. `stop()` closes it (the
 * service's sends then fail to connect); `start()` listens again on the same port.
 */
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export type Mailbox = {
  port: number;
  received: ParsedMail[];
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
};

export async function startMailbox(): Promise<Mailbox> {
  const received: ParsedMail[] = [];
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
            callback();
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
    async stop() {
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = null;
    },
  };
}
