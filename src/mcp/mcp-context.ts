import type { Config } from '../config.ts';
import type { Clock, CoreDeps } from '../core/deps.ts';
import type { McpGrant } from '../core/programs/mcp-tokens.ts';
import type { EventEnqueuer } from '../queue/enqueue-events.ts';

/**
 * Runs a heavy report in the slot of `key` within a time limit (the HTTP edge's report gate
 * satisfies it): a rules preview asked by an assistant queues with the dashboard's, not beside it.
 */
export type ReportRunner = {
  run<T>(
    key: string,
    label: string,
    o: { limitMs: number; wait?: boolean },
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T>;
};

/** What the MCP server is given (the HTTP edge's route context satisfies it). */
export type McpContext = EventEnqueuer & {
  deps(): CoreDeps;
  clock: Clock;
  config: Pick<Config, 'REPORT_TIMEOUT_MS' | 'EVENT_ATTEMPTS' | 'EVENT_RETRY_BASE_MS'>;
  reports: ReportRunner;
};

/** What every tool call runs with: the service, the token's one program and scope, and where the call came from (the audit log's). */
export type ToolEnv = { ctx: McpContext; grant: McpGrant; caller: { ip: string; userAgent: string | null } };
