/** One item's own outcome in a batch: a value, or the error that item alone fails with. */
export type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

export type MicroBatchOptions = {
  /** A batch runs as soon as it holds this many items. */
  maxSize: number;
  /** Otherwise it runs this long after its first item arrived (0: on the next turn of the loop). */
  lingerMs: number;
};

/**
 * Groups calls that arrive close together (the concurrent slots of a queue worker) into one run
 * of `run`, which answers each item on its own: one item failing fails that call only. When
 * `run` itself throws, every call of the batch fails with that error (the queue retries them one
 * by one, and the use-cases are idempotent). Works the same under BullMQ and the in-process
 * queue: both call a handler once per job, up to the worker's concurrency at a time.
 */
export function createMicroBatcher<I, O>(
  run: (items: I[]) => Promise<Array<Settled<O>>>,
  opts: MicroBatchOptions,
): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (v: O) => void; reject: (err: unknown) => void };
  let pending: Waiting[] = [];
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;

  const clearTimer = () => {
    if (timer === null) return;
    if (opts.lingerMs > 0) clearTimeout(timer as NodeJS.Timeout);
    else clearImmediate(timer as NodeJS.Immediate);
    timer = null;
  };
  const schedule = () => {
    if (timer !== null) return;
    timer = opts.lingerMs > 0 ? setTimeout(flush, opts.lingerMs) : setImmediate(flush);
  };
  function flush(): void {
    clearTimer();
    const batch = pending.slice(0, opts.maxSize);
    pending = pending.slice(batch.length);
    if (pending.length) schedule();
    if (!batch.length) return;
    run(batch.map((w) => w.item)).then(
      (results) => {
        batch.forEach((w, i) => {
          const r = results[i];
          if (!r) w.reject(new Error('batch returned no result for this item'));
          else if (r.ok) w.resolve(r.value);
          else w.reject(r.error);
        });
      },
      (err) => {
        for (const w of batch) w.reject(err);
      },
    );
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (pending.length >= opts.maxSize) flush();
      else schedule();
    });
}

/** Runs `fn` on each item concurrently and settles each one on its own. */
export function settleEach<I, O>(items: I[], fn: (item: I, index: number) => Promise<O>): Promise<Array<Settled<O>>> {
  return Promise.all(
    items.map((item, i) =>
      fn(item, i).then(
        (value): Settled<O> => ({ ok: true, value }),
        (error: unknown): Settled<O> => ({ ok: false, error }),
      ),
    ),
  );
}
