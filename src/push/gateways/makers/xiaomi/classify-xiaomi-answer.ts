import { reasonOf, type ReasonOf } from '../../delivery-reasons.ts';
import { delivered, type DeliveryOutcome } from '../../delivery.ts';
import { everyToken, type BatchVerdict } from '../maker.ts';
import { codeMeaning } from '../shared/code-meaning.ts';

/** What a Mi Push answer says: `{result, code, reason, data: {bad_regids}}`, its words as sent. */
export interface XiaomiAnswer {
  status: number;
  /** The result code as digits (`0` success); undefined when the body had none. */
  code: string | undefined;
  /** `data.bad_regids` of a success: the regIds Xiaomi could not send to; undefined when absent. */
  badRegIds: ReadonlySet<string> | undefined;
  /** From `Retry-After`. */
  retryAfterMs?: number | undefined;
}

type Verdict = 'retry' | 'failed' | 'invalid' | 'quota';

/**
 * Result codes of `/v3/message/regid` and what they call for (Xiaomi's
 * "服务端错误码参考"; 10022–10024 from its server SDK's ErrorCode, 200001 from
 * production code that meets it; docs/push-engine.md, "Xiaomi Mi Push").
 */
const verdictByCode: Readonly<Record<string, Verdict>> = {
  // Xiaomi's side: 内部错误, 系统错误, 系统繁忙, 远程服务错误, DB错误, 消息Push内部调用失败.
  '1': 'retry',
  '10001': 'retry',
  '10002': 'retry',
  '10003': 'retry',
  '20607': 'retry',
  '26003': 'retry',
  // Rates: IP and user request rates, 应用的API调用太频繁; 请求过期.
  '10022': 'retry',
  '10023': 'retry',
  '10024': 'retry',
  '10027': 'retry',
  '10037': 'retry',
  // The day's quota: 应用当日发送消息数量过多, and 200001 (日超频).
  '10034': 'quota',
  '200001': 'quota',
  // The request: 参数错误, 非法请求, 缺失必选参数, 参数值非法, 消息内容太长, too many or too long extras.
  '10008': 'failed',
  '10012': 'failed',
  '10016': 'failed',
  '10017': 'failed',
  '65009': 'failed',
  '65014': 'failed',
  '65015': 'failed',
  // The app or its credentials: 黑名单, 操作被禁止, 认证失败, token认证失败, 被限制的请求, 缺少必要的参数, 非法应用,
  // appId, appKey or package name 不合法, 发送应用通知消息失败, channel相关信息不匹配.
  '10031': 'failed',
  '10036': 'failed',
  '21301': 'failed',
  '21302': 'failed',
  '21303': 'failed',
  '21305': 'failed',
  '22000': 'failed',
  '22006': 'failed',
  '22007': 'failed',
  '22022': 'failed',
  '22102': 'failed',
  '27001': 'failed',
  // The devices: 发送消息失败 (every regId of the request was refused), 不合法的设备.
  '20301': 'invalid',
  '10029': 'invalid',
};

/** Reads a Mi Push answer body; missing or malformed parts are undefined. */
export function readXiaomiAnswer(status: number, body: Buffer, retryAfterMs?: number): XiaomiAnswer {
  let parsed: { code?: unknown; data?: unknown } = {};
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null) parsed = value;
  } catch {
    // No code: judged by the status.
  }
  const code =
    typeof parsed.code === 'number' && Number.isSafeInteger(parsed.code)
      ? String(parsed.code)
      : typeof parsed.code === 'string' && /^-?\d{1,12}$/.test(parsed.code)
        ? String(Number(parsed.code))
        : undefined;
  return { status, code, badRegIds: badRegIds(parsed.data), retryAfterMs };
}

/**
 * What a Mi Push answer to a request for `regIds` says of each:
 *
 * - 0: every regId delivered but those `data.bad_regids` lists, which are
 *   invalid and their installations removed, since another regId of the
 *   same request was accepted or the profile has delivered through this
 *   endpoint before (`proven`); a list naming every regId of a profile that
 *   has not delivered yet speaks of the credentials as much as of the
 *   devices: invalid, kept;
 * - 20301 (sending failed: every regId refused): invalid; removed only when
 *   the request carried that one regId and `proven`; 10029: invalid, kept;
 * - 10034 and 200001: the day's quota is spent;
 * - 1, 10001–10003, 10022–10024, 10027, 10037, 20607, 26003, and without a
 *   known code 429 and 5xx: retry, after `Retry-After` when given;
 * - the other documented codes, a wrong AppSecret (21301) among them:
 *   failed, nothing removed. A code outside the documented ones is `Other`.
 */
export function classifyXiaomiAnswer(answer: XiaomiAnswer, regIds: readonly string[], proven: boolean): BatchVerdict {
  const { code, status } = answer;
  if (code === '0') return success(answer.badRegIds, regIds, proven);
  const verdict = codeMeaning(verdictByCode, code);
  const reason = code === undefined ? undefined : reasonOf('xiaomi', `Mi${code}`);
  switch (verdict) {
    case 'quota':
      return { kind: 'quota-exhausted', word: `Mi${code}` };
    case 'invalid':
      return everyToken({ kind: 'invalid-token', reason: reason ?? 'Other', unregistered: code === '20301' && regIds.length === 1 && proven });
    case 'retry':
      return everyToken(retry(reason ?? 'Other', answer.retryAfterMs));
    case 'failed':
      return everyToken({ kind: 'failed', reason: reason ?? 'Other' });
    case undefined:
      break;
  }
  // No code Herald knows: the status decides.
  const noCode = code === undefined;
  if (status === 429) return everyToken(retry(noCode ? 'MiTooManyRequests' : 'Other', answer.retryAfterMs));
  if (status >= 500) return everyToken(retry(noCode ? 'MiServerError' : 'Other', answer.retryAfterMs));
  if (status === 401 || status === 403) return everyToken({ kind: 'failed', reason: noCode ? 'MiUnauthorized' : 'Other' });
  // A 200 without a readable result cannot say which regIds were delivered: failed, not sent again.
  return everyToken({ kind: 'failed', reason: 'Other' });
}

/** `data.bad_regids` (also read as `bad_regIds`): a comma-separated string, as Xiaomi sends it, or a list. */
export function badRegIds(data: unknown): ReadonlySet<string> | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const record = data as Record<string, unknown>;
  const listed = Object.hasOwn(record, 'bad_regids') ? record.bad_regids : Object.hasOwn(record, 'bad_regIds') ? record.bad_regIds : undefined;
  if (typeof listed === 'string') return new Set(listed.split(',').map((regId) => regId.trim()).filter((regId) => regId !== ''));
  if (Array.isArray(listed)) return new Set(listed.filter((regId): regId is string => typeof regId === 'string' && regId !== ''));
  return undefined;
}

function success(listed: ReadonlySet<string> | undefined, regIds: readonly string[], proven: boolean): BatchVerdict {
  if (listed === undefined || listed.size === 0) return everyToken(delivered);
  const bad = regIds.filter((regId) => listed.has(regId));
  if (bad.length === 0) return everyToken(delivered);
  const outcome: DeliveryOutcome = { kind: 'invalid-token', reason: 'MiBadRegId', unregistered: proven || bad.length < regIds.length };
  return { kind: 'tokens', others: delivered, outcomes: new Map(bad.map((regId) => [regId, outcome])) };
}

function retry(reason: ReasonOf<'xiaomi'> | 'Other', retryAfterMs: number | undefined): DeliveryOutcome {
  return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
}
