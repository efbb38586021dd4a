import { expect, test } from 'vitest';
import { normaliseEmail } from '../../src/core/shared/normalise-email.ts';

test.each([
  ['case: local parts are compared case-insensitively', 'Jane.Doe@Example.COM', 'jane.doe@example.com'],
  ['surrounding spaces and tabs are dropped', ' \tjane@example.com \n', 'jane@example.com'],
  ['a trailing dot of the domain (a root name) is the same host', 'jane@example.com.', 'jane@example.com'],
  ['several trailing dots too', 'jane@example.com..', 'jane@example.com'],
  ['a +tag is dropped at any domain', 'jane+shop@example.com', 'jane@example.com'],
  ['only the first + counts', 'jane+a+b@example.com', 'jane@example.com'],
  ['dots outside Gmail are kept: another mailbox', 'jane.doe@example.com', 'jane.doe@example.com'],
  ['Gmail ignores dots in the local part', 'j.a.n.e.doe@gmail.com', 'janedoe@gmail.com'],
  ['googlemail.com is gmail.com', 'jane.doe@googlemail.com', 'janedoe@gmail.com'],
  ['everything at once', '  J.ane.Doe+Promo@GoogleMail.COM. ', 'janedoe@gmail.com'],
  ['Outlook +tag', 'Jane+x@outlook.com', 'jane@outlook.com'],
  ['iCloud +tag', 'jane+x@icloud.com', 'jane@icloud.com'],
  ['Yahoo hyphens are kept: mary-jane is not mary', 'mary-jane@yahoo.com', 'mary-jane@yahoo.com'],
  ['a local part that is only a tag is kept whole', '+tag@example.com', '+tag@example.com'],
  ['not an address: trimmed and lower-cased only', ' Not-An-Address ', 'not-an-address'],
  ['no domain: trimmed and lower-cased only', 'Jane@', 'jane@'],
])('%s: %j → %j', (_label, input, expected) => {
  expect(normaliseEmail(input)).toBe(expected);
});
