import type { Clock, CoreCaches } from './deps.ts';
import { expiringMap } from './settings-cache.ts';
import { createInboxWriter } from './webhooks/webhook-inbox.ts';

/** The per-process state of the core, built once by the app context and passed on `CoreDeps`. */
export function createCoreCaches(clock: Clock): CoreCaches {
  return {
    programs: expiringMap(clock),
    partners: expiringMap(clock),
    secrets: expiringMap(clock),
    rewardTerms: expiringMap(clock),
    eventEndpoints: expiringMap(clock),
    inboxWriter: createInboxWriter(),
  };
}
