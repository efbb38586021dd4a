import { z } from 'zod';

/** Delivers one stored notification after the transaction that created it committed. */
export const notifyJobSchema = z.object({ kind: z.literal('notify'), notificationId: z.number().int().positive() });
export type NotifyJob = z.infer<typeof notifyJobSchema>;

export function buildNotifyJob(notificationId: number): NotifyJob {
  return { kind: 'notify', notificationId };
}
