import { z } from 'zod';

/** Delivers one outbound event to one endpoint (an `event_delivery` row) after the transaction that wrote it committed. */
export const eventJobSchema = z.object({ kind: z.literal('event'), deliveryId: z.number().int().positive() });
export type EventJob = z.infer<typeof eventJobSchema>;

export function buildEventJob(deliveryId: number): EventJob {
  return { kind: 'event', deliveryId };
}
