/**
 * Meizu Flyme Push's words, for the reasons catalogue (delivery-reasons.ts):
 * its codes as `Meizu<code>` (the top-level "Api returnCode" and the codes of
 * the per-pushId map, which Meizu numbers apart; where both use one number
 * for two meanings, the map's gets its own name), and Herald's names for
 * what it reads without a code. docs/push-engine.md, "Meizu Flyme Push".
 */
export const meizuReasons = [
  // Top-level codes: the whole request.
  'Meizu500',
  'Meizu1001',
  'Meizu1003',
  'Meizu1005',
  /** The signature did not match: the App Secret is wrong. */
  'Meizu1006',
  'Meizu110000',
  'Meizu110001',
  /** pushId not registered (top level: every pushId of the request, or the map's word for one). */
  'Meizu110002',
  /** pushId illegal (likewise). */
  'Meizu110003',
  'Meizu110004',
  'Meizu110009',
  /** The app sends too fast (top level). */
  'Meizu110010',
  /** The app's pushes for the day are spent (top level). */
  'Meizu110019',
  'Meizu110031',
  'Meizu110032',
  'Meizu110033',
  'Meizu110051',
  'Meizu110053',
  // Codes of the per-pushId map.
  'Meizu201',
  'Meizu501',
  'Meizu513',
  'Meizu518',
  'Meizu519',
  /** Folded: the device got the app's messages too often in a minute (5 by default). */
  'Meizu520',
  /** The map's 110010: the user switched the app's notifications off (the installation stays: they may switch back on). */
  'MeizuSwitchedOff',
  /** The map's 110011: the device's public (公信) messages for the day are spent. */
  'Meizu110011',
  /** A registrationId Herald will not send: a comma in it would add pushIds to the list. */
  'MeizuBadPushId',
  /** HTTP 429 without a code. */
  'MeizuTooManyRequests',
  /** Another 5xx without a code. */
  'MeizuServerError',
] as const;
