import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError } from '../core/shared/errors.ts';
import type { McpScope } from '../core/entities/mcp-token.ts';
import type { ToolEnv } from './mcp-context.ts';

/** One tool: its schemas, the scope a token needs, and what it runs. */
export type ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> = {
  name: string;
  title: string;
  description: string;
  /** `write`: refused to a read-only token. */
  scope: McpScope;
  /** True when it changes data (approvals); a preview does not, even in the write scope. */
  changes?: boolean;
  input: I;
  output: O;
  run: (args: z.infer<z.ZodObject<I>>, env: ToolEnv) => Promise<z.input<z.ZodObject<O>>>;
};

/** A tool ready to be registered on a per-request server. */
export type Tool = { name: string; scope: McpScope; install(server: McpServer, env: ToolEnv): void };

/** An expected failure as the tool's error result: the error code and its message, nothing internal. */
function toolError(env: ToolEnv, name: string, err: unknown): CallToolResult {
  if (err instanceof AppError)
    return { isError: true, content: [{ type: 'text', text: `${err.code}: ${err.message}` }] };
  // Unknown errors are logged and answered with a fixed message, as the HTTP error table does.
  env.ctx.log.error({ tool: name, programId: env.grant.programId, err }, 'MCP tool failed');
  return { isError: true, content: [{ type: 'text', text: 'internal_error: The tool failed; try again later' }] };
}

/**
 * A tool whose structured output is checked against `output` by the server (and by clients that
 * read `outputSchema`), also given as JSON text for clients that only read text. Every tool runs on
 * the token's program only: no input names a program.
 */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(spec: ToolSpec<I, O>): Tool {
  const inputSchema = z.strictObject(spec.input);
  return {
    name: spec.name,
    scope: spec.scope,
    install(server, env) {
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description: `${spec.description}${spec.scope === 'write' ? ' Needs a token with the write scope.' : ''}`,
          inputSchema,
          outputSchema: z.strictObject(spec.output),
          annotations: { readOnlyHint: !spec.changes, destructiveHint: false, openWorldHint: false },
        },
        async (args: unknown): Promise<CallToolResult> => {
          try {
            if (spec.scope === 'write' && env.grant.scope !== 'write')
              throw new AppError(
                'forbidden',
                `${spec.name} needs a token with the write scope; this token is read-only`,
              );
            const out = (await spec.run(args as z.infer<z.ZodObject<I>>, env)) as Record<string, unknown>;
            return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
          } catch (err) {
            return toolError(env, spec.name, err);
          }
        },
      );
    },
  };
}
