/**
 * Xiaomi Mi Push's words, for the reasons catalogue (delivery-reasons.ts):
 * its result codes as `Mi<code>` (Xiaomi documents numbers, "服务端错误码参考"),
 * and Herald's names for what it reads without a code. docs/push-engine.md,
 * "Xiaomi Mi Push".
 */
export const xiaomiReasons = [
  /** A regId a success listed in `data.bad_regids`: that regId is invalid; the installation is removed. */
  'MiBadRegId',
  /** 内部错误. */
  'Mi1',
  'Mi10001',
  'Mi10002',
  'Mi10003',
  'Mi10008',
  'Mi10012',
  'Mi10016',
  'Mi10017',
  /** 10022 to 10024: request rates over the limit, from the official server SDK's ErrorCode. */
  'Mi10022',
  'Mi10023',
  'Mi10024',
  'Mi10027',
  'Mi10029',
  'Mi10031',
  'Mi10036',
  'Mi10037',
  'Mi20301',
  'Mi20607',
  'Mi21301',
  'Mi21302',
  'Mi21303',
  'Mi21305',
  'Mi22000',
  'Mi22006',
  'Mi22007',
  'Mi22022',
  'Mi22102',
  'Mi26003',
  'Mi27001',
  'Mi65009',
  'Mi65014',
  'Mi65015',
  /** HTTP 401 or 403 without a result code Herald knows. */
  'MiUnauthorized',
  /** HTTP 429 without a result code Herald knows. */
  'MiTooManyRequests',
  /** A 5xx without a result code Herald knows. */
  'MiServerError',
] as const;
