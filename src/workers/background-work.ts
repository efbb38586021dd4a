/**
 * Work a worker starts after a job answered (notifications delivered after commit, outbound events
 * enqueued): nothing awaits it, so shutdown does. Without this, a process stopping right after an
 * answer closed the queue and the database under a delivery still running.
 */
export type BackgroundWork = {
  /** Runs `work` in the background; its failure is its own to log (never an unhandled rejection). */
  start(work: Promise<unknown>): void;
  /** Resolves once everything started so far has settled. */
  settled(): Promise<void>;
};

export function createBackgroundWork(): BackgroundWork {
  const running = new Set<Promise<unknown>>();
  return {
    start(work) {
      const p = work.catch(() => {}).finally(() => running.delete(p));
      running.add(p);
    },
    async settled() {
      while (running.size) await Promise.all(running);
    },
  };
}
