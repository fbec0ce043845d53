/**
 * OPPO Push's words, for the reasons catalogue (delivery-reasons.ts): its
 * return codes as `Oppo<code>` (OPPO documents numbers with short English
 * names), and Herald's names for what it reads without a code or per
 * message. docs/push-engine.md, "OPPO Push".
 */
export const oppoReasons = [
  /** A message answered errorCode 10000 (or the request code 10000): "Invalid Registration_id". */
  'OppoInvalidRegistrationId',
  /** A target the batch answer did not list: its fate is unknown, so it is not sent again. */
  'OppoNoResult',
  /** Code -1, "Service Currently Unavailable": retried. */
  'OppoServiceUnavailable',
  /** Code -2, "Service in Flow Control": retried. */
  'OppoFlowControl',
  /** Invalid or missing auth token: a new one and one more try, then failed. */
  'Oppo11',
  'Oppo29',
  'Oppo12',
  /** App Call Limited (calls or call rate): retried. */
  'Oppo13',
  'Oppo14',
  'Oppo15',
  'Oppo16',
  'Oppo17',
  'Oppo18',
  'Oppo19',
  'Oppo20',
  'Oppo21',
  'Oppo22',
  'Oppo23',
  'Oppo24',
  'Oppo25',
  'Oppo26',
  'Oppo27',
  'Oppo28',
  'Oppo30',
  'Oppo31',
  'Oppo32',
  'Oppo34',
  'Oppo40',
  'Oppo41',
  'Oppo51',
  /** App Call Frequency Limit: retried. */
  'Oppo55',
  'Oppo59',
  /** Category error, or a notify_level the category does not allow. */
  'Oppo67',
  /** HTTP 5xx (or 429) without a code. */
  'OppoServerError',
] as const;
