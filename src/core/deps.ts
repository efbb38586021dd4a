import type { EntityManager } from '@mikro-orm/sql';

/** Injected clock: the only time source of the core (tests move it). */
export type Clock = () => Date;

/** The logging surface core needs (pino's logger satisfies it). */
export type Logger = {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
};

/** What every use-case receives. `em` is a fork owned by the caller (one per job or request). */
export type CoreDeps = { em: EntityManager; clock: Clock; log: Logger };

export const DAY_MS = 86_400_000;
