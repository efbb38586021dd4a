import { pino, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Config } from './config.ts';

/** Never logged: API keys, provider secrets, the Authorization header. */
const REDACT = ['*.authorization', '*.signingSecret', '*.signing_secret', '*.secret', '*.key', '*.apiKey'];

/**
 * pino, writing readable local-time lines when a person watches the terminal and JSON lines when a
 * collector reads stdout (`LOG_FORMAT=auto`); `json` or `pretty` forces one. Pretty printing runs in
 * this thread (no transport worker), so a line is written before the process exits.
 */
export function createLogger(
  config: Pick<Config, 'LOG_LEVEL' | 'LOG_FORMAT'>,
  stdout: NodeJS.WriteStream = process.stdout,
): Logger {
  const pretty = config.LOG_FORMAT === 'pretty' || (config.LOG_FORMAT === 'auto' && stdout.isTTY === true);
  const opts = { level: config.LOG_LEVEL, redact: REDACT };
  if (!pretty) return pino(opts);
  return pino(
    opts,
    PinoPretty({
      destination: 1,
      sync: true,
      colorize: stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      singleLine: true,
    }),
  );
}
