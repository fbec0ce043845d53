/**
 * Honor Push's words, for the reasons catalogue (delivery-reasons.ts). Honor
 * names its per-token verdicts (`expireTokens`, `failTokens`); its result
 * codes are `Honor<code>`: Honor's table of codes is not public, so these are
 * the codes of the HMS API Honor's service forked from that Herald acts on,
 * and any other code counts as `Other` (logged). docs/push-engine.md,
 * "Honor Push".
 */
export const honorReasons = [
  /** A token the answer lists in `expireTokens`: no longer registered; the installation is removed. */
  'HonorExpireToken',
  /** A token the answer lists in `failTokens`: not sent, for a reason Honor does not give. */
  'HonorFailToken',
  /** A token of an answer with `sendResult: false` that neither list names. */
  'HonorSendFailed',
  'Honor80200001',
  'Honor80200003',
  'Honor80300007',
  'Honor80300008',
  'Honor81000001',
  /** HTTP 401 without a result code Herald knows. */
  'HonorUnauthorized',
  /** HTTP 503 (or 429) without a result code Herald knows: flow control. */
  'HonorFlowControl',
  /** Another 5xx without a result code Herald knows. */
  'HonorServerError',
] as const;
