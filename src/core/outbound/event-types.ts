import type { OutboundEventType } from '../shared/vocabulary.ts';
import type { COMMISSION_CHANGES, OutboundEventData } from './event-schemas.ts';

/** What changed in a `commission.updated` event (`data.change`; `payout_failed`: payable again). */
export type CommissionChange = (typeof COMMISSION_CHANGES)[number];

/**
 * An event before it is stored: its type and `data` (wire names: snake_case, minor units), typed
 * by the event's schema (event-schemas.ts), which also checks it before it is written.
 */
export type OutboundEvent = { [T in OutboundEventType]: OutboundEventOf<T> }[OutboundEventType];
/** An event of one type, as its builder makes it (event-data.ts). */
export type OutboundEventOf<T extends OutboundEventType> = { type: T; data: OutboundEventData<T> };
