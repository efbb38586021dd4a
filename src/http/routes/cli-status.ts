import type { AppContext } from '../../app-context.ts';
import { getProgramStatus } from '../../core/get-program-status.ts';
import { authenticate, keyWarnings } from '../auth.ts';
import { route } from '../route.ts';

/** GET /api/v1/cli/status: program health for the merchant CLI. */
export function cliStatusRoute(ctx: AppContext) {
  return route(ctx, async (event) => {
    const auth = await authenticate(ctx, event);
    const status = await getProgramStatus(ctx.deps(), auth.programId, auth.mode);
    return { success: true, ...status, ...keyWarnings(auth) };
  });
}
