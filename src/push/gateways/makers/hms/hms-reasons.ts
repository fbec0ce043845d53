/**
 * Huawei Push Kit's words, for the reasons catalogue (delivery-reasons.ts):
 * its result codes as `Hms<code>` (Huawei documents numbers only), and
 * Herald's names for what it reads without a code. docs/push-engine.md,
 * "Huawei Push Kit".
 */
export const hmsReasons = [
  /** A token listed in a partial success's `illegal_tokens` (code 80100000): that token is invalid; the installation is removed. */
  'HmsIllegalToken',
  /** A partial success whose list of illegal tokens could not be read. */
  'Hms80100000',
  'Hms80100001',
  'Hms80100002',
  'Hms80100003',
  'Hms80100004',
  'Hms80100013',
  'Hms80100016',
  'Hms80100017',
  'Hms80100018',
  'Hms80200001',
  'Hms80200003',
  'Hms80300002',
  'Hms80300007',
  'Hms80300008',
  'Hms80300010',
  'Hms80300011',
  'Hms80300013',
  'Hms80600003',
  'Hms81000001',
  /** HTTP 401 without a result code Herald knows. */
  'HmsUnauthorized',
  /** HTTP 503 (or 429): flow control. */
  'HmsFlowControl',
  /** Another 5xx without a result code Herald knows. */
  'HmsServerError',
] as const;
