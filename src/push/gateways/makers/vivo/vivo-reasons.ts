/**
 * vivo Push's words, for the reasons catalogue (delivery-reasons.ts): its
 * result codes as `Vivo<code>` (vivo documents numbers only), the statuses
 * of `invalidUser(s)` by what they mean, and Herald's name for an answer
 * without a code. docs/push-engine.md, "vivo Push".
 */
export const vivoReasons = [
  /** invalidUser status 1: the regId does not exist (removed only when the credentials are known to work). */
  'VivoUserNotFound',
  /** invalidUser status 2: the app was uninstalled, unsubscribed or its data cleared; removed. */
  'VivoUninstalled',
  /** invalidUser status 3: offline for ninety days; kept. */
  'VivoInactive',
  /** invalidUser status 4: not a test device, for a test push (pushMode 1). */
  'VivoNotTestDevice',
  /** authToken invalid or expired: a new one and one more try, then failed. */
  'Vivo10000',
  'Vivo10043',
  'Vivo10045',
  'Vivo10050',
  'Vivo10051',
  'Vivo10054',
  'Vivo10055',
  'Vivo10056',
  'Vivo10057',
  'Vivo10058',
  'Vivo10059',
  'Vivo10060',
  'Vivo10061',
  'Vivo10062',
  'Vivo10063',
  'Vivo10064',
  'Vivo10065',
  'Vivo10066',
  'Vivo10067',
  'Vivo10068',
  'Vivo10069',
  /** Outside the hours vivo sends operational messages (07:00-23:00). */
  'Vivo10071',
  /** Sending too fast: retried. */
  'Vivo10072',
  'Vivo10094',
  'Vivo10095',
  'Vivo10096',
  'Vivo10097',
  'Vivo10103',
  'Vivo10104',
  'Vivo10150',
  'Vivo10151',
  'Vivo10152',
  'Vivo10153',
  'Vivo10155',
  'Vivo10200',
  'Vivo10201',
  'Vivo10202',
  'Vivo10203',
  'Vivo10204',
  'Vivo10205',
  'Vivo10206',
  'Vivo10207',
  /** The regId of a single send is not valid. */
  'Vivo10302',
  'Vivo10304',
  'Vivo10305',
  'Vivo10306',
  /** The device cannot be pushed to now (notifications off, inactive). */
  'Vivo10311',
  'Vivo10352',
  'Vivo10353',
  'Vivo11000',
  /** HTTP 5xx (or 429) without a result code. */
  'VivoServerError',
] as const;
