/**
 * The confirmations a page shows after a change, by the key a redirect
 * carries (`?notice=<key>`): only these sentences, so nothing typed into a
 * URL is ever shown as a message.
 */
const notices = {
  sent: 'The push was accepted.',
  'test-sent': 'The test push was accepted: it goes to that one device.',
  scheduled: 'The push is scheduled.',
  cancelled: 'The scheduled push was cancelled.',
  deleted: 'The installation was deleted.',
  unlocked: "The user's login lock was lifted.",
  'reset-sent': 'A password reset mail was sent.',
  'verify-sent': 'A verification mail was sent.',
} as const;

export type NoticeKey = keyof typeof notices;

export function noticeText(key: unknown): string | undefined {
  return typeof key === 'string' && Object.hasOwn(notices, key) ? notices[key as NoticeKey] : undefined;
}
