import { expect, test } from 'vitest';
import { readTrackerMetadata } from '../../src/providers/metadata.ts';

test.each([
  {
    label: 'all four keys present and program matches',
    sources: [{ tracker_click_id: 'c', tracker_customer_key: 'u', tracker_visitor_id: 'v', program_id: '42' }],
    expected: { ok: true, clickId: 'c', customerKey: 'u', visitorId: 'v', couponCode: null },
  },
  {
    label: 'no program_id: nothing to contradict, accepted',
    sources: [{ tracker_click_id: 'c' }],
    expected: { ok: true, clickId: 'c', customerKey: null, visitorId: null, couponCode: null },
  },
  {
    label: 'program_id padded with spaces is trimmed before comparing',
    sources: [{ program_id: ' 42 ' }],
    expected: { ok: true, clickId: null, customerKey: null, visitorId: null, couponCode: null },
  },
  {
    label: 'tracker_coupon_code: a partner code the payload cannot name otherwise',
    sources: [{ tracker_coupon_code: ' SPRING ' }],
    expected: { ok: true, clickId: null, customerKey: null, visitorId: null, couponCode: 'SPRING' },
  },
  {
    label: 'program_id of another program → ignored',
    sources: [{ program_id: '43', tracker_click_id: 'c' }],
    expected: { ok: false, reason: 'program_mismatch' },
  },
  {
    label: 'program_id that is not a number is not this program',
    sources: [{ program_id: 'forty-two' }],
    expected: { ok: false, reason: 'program_mismatch' },
  },
  {
    label: 'empty program_id counts as absent',
    sources: [{ program_id: '' }],
    expected: { ok: true, clickId: null, customerKey: null, visitorId: null, couponCode: null },
  },
  {
    label: 'non-string ids (objects, booleans) are dropped',
    sources: [{ tracker_click_id: { id: 1 }, tracker_customer_key: true }],
    expected: { ok: true, clickId: null, customerKey: null, visitorId: null, couponCode: null },
  },
  {
    label: 'first source wins per key, later sources fill gaps',
    sources: [{ tracker_click_id: 'sub' }, { tracker_click_id: 'inv', tracker_customer_key: 'u' }],
    expected: { ok: true, clickId: 'sub', customerKey: 'u', visitorId: null, couponCode: null },
  },
  {
    label: 'null / array / string sources are skipped',
    sources: [null, ['x'], 'tracker_click_id', { tracker_click_id: 'c' }],
    expected: { ok: true, clickId: 'c', customerKey: null, visitorId: null, couponCode: null },
  },
])('$label', ({ sources, expected }) => {
  expect(readTrackerMetadata(sources, 42)).toEqual(expected);
});
