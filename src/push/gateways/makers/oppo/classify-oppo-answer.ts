import { reasonOf, type ReasonOf } from '../../delivery-reasons.ts';
import { delivered, type DeliveryOutcome } from '../../delivery.ts';
import { everyToken, type BatchVerdict } from '../maker.ts';
import { codeMeaning } from '../shared/code-meaning.ts';

/** One message's result in a `unicast_batch` answer. */
export interface OppoItemResult {
  /** The error code, as text; undefined for a message OPPO accepted. */
  errorCode: string | undefined;
}

/** What an OPPO answer says: `{code, message, data}`, its words as sent. */
export interface OppoAnswer {
  status: number;
  /** The return code as text (`"0"`, `"-2"`, `"33"`); undefined when the body had none. */
  code: string | undefined;
  /** Per message of a `unicast_batch` answer, by registration id; undefined when `data` is not such a list. */
  items: ReadonlyMap<string, OppoItemResult> | undefined;
  /** From `Retry-After`. */
  retryAfterMs?: number | undefined;
}

/** A verdict, and the word to log when it counts one as `Other`. */
export interface OppoReading {
  verdict: BatchVerdict;
  unknownWord: string | undefined;
}

type Verdict = 'retry' | 'failed' | 'auth' | 'quota';

/** Return codes and what they call for (OPPO's "调用地址，公共参数和返回码"; docs/push-engine.md, "OPPO Push"). */
const verdictByCode: Readonly<Record<string, Verdict>> = {
  '-1': 'retry',
  '-2': 'retry',
  '11': 'auth',
  '12': 'failed',
  '13': 'retry',
  '14': 'failed',
  '15': 'failed',
  '16': 'failed',
  '17': 'failed',
  '18': 'failed',
  '19': 'failed',
  '20': 'failed',
  '21': 'failed',
  '22': 'failed',
  '23': 'failed',
  '24': 'failed',
  '25': 'failed',
  '26': 'failed',
  '27': 'failed',
  '28': 'failed',
  '29': 'auth',
  '30': 'failed',
  '31': 'failed',
  '32': 'failed',
  '33': 'quota',
  '34': 'failed',
  '40': 'failed',
  '41': 'failed',
  '51': 'failed',
  '55': 'retry',
  '59': 'failed',
  '67': 'failed',
};

/** OPPO's word for a registration id it cannot use ("Invalid Registration_id", "registration_id格式不正确"). */
const invalidRegistrationId = '10000';

/** Reads an OPPO answer body; missing or malformed parts are undefined. */
export function readOppoAnswer(status: number, body: Buffer, retryAfterMs?: number): OppoAnswer {
  let parsed: { code?: unknown; data?: unknown } = {};
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null) parsed = value;
  } catch {
    // No code: judged by the status.
  }
  return { status, code: wordOf(parsed.code), items: itemsOf(parsed.data), retryAfterMs };
}

/**
 * What an OPPO answer to a `unicast_batch` request for `tokens` says of each:
 *
 * - code 0: per message. No `errorCode`: delivered. 10000, an invalid
 *   registration id: invalid, and the installation removed when another
 *   message of the same request was delivered or the profile has delivered
 *   before (so the credentials work: another app's AppKey would make every
 *   id "invalid"). Another code: failed, `Other`. A token the answer does
 *   not list: failed `OppoNoResult` (sending it again could deliver twice);
 * - 10000 for the whole request: invalid, removed only for a request of
 *   that one token through a profile that delivered before;
 * - 11 and 29 (invalid or missing auth token): a new token and one more try;
 * - -1, -2, 13, 55, and without a code a 5xx or 429: retry, after
 *   `Retry-After` when given;
 * - 33, the daily message limit: the profile's quota is spent;
 * - any other documented code: failed. A code OPPO does not document is
 *   `Other`, judged by the status.
 */
export function classifyOppoAnswer(answer: OppoAnswer, tokens: readonly string[], proven: boolean): OppoReading {
  const { code, status } = answer;
  if (code === '0' && status === 200) return perMessage(answer.items, tokens, proven);
  if (code === invalidRegistrationId) {
    return { verdict: everyToken({ kind: 'invalid-token', reason: 'OppoInvalidRegistrationId', unregistered: tokens.length === 1 && proven }), unknownWord: undefined };
  }
  const verdict = codeMeaning(verdictByCode, code);
  if (verdict === 'quota') return { verdict: { kind: 'quota-exhausted', word: `Oppo${code}` }, unknownWord: undefined };
  if (verdict !== undefined && code !== undefined) {
    const reason = reasonFor(code);
    switch (verdict) {
      case 'auth':
        return { verdict: { kind: 'auth-rejected', outcome: { kind: 'failed', reason } }, unknownWord: undefined };
      case 'retry':
        return { verdict: everyToken(retry(reason, answer.retryAfterMs)), unknownWord: undefined };
      case 'failed':
        return { verdict: everyToken({ kind: 'failed', reason }), unknownWord: undefined };
    }
  }
  // No code Herald knows: the status decides.
  const unknownWord = code;
  if (status >= 500 || status === 429) return { verdict: everyToken(retry(code === undefined ? 'OppoServerError' : 'Other', answer.retryAfterMs)), unknownWord };
  // An answer Herald cannot read cannot say which messages were delivered: failed, not sent again.
  return { verdict: everyToken({ kind: 'failed', reason: 'Other' }), unknownWord: unknownWord ?? String(status) };
}

const noResult: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'OppoNoResult' });
const otherItemError: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'Other' });

function perMessage(items: ReadonlyMap<string, OppoItemResult> | undefined, tokens: readonly string[], proven: boolean): OppoReading {
  if (items === undefined) return { verdict: everyToken({ kind: 'failed', reason: 'Other' }), unknownWord: 'data' };
  let anyDelivered = false;
  for (const token of tokens) {
    const item = items.get(token);
    if (item !== undefined && item.errorCode === undefined) anyDelivered = true;
  }
  const invalid: DeliveryOutcome = Object.freeze({ kind: 'invalid-token', reason: 'OppoInvalidRegistrationId', unregistered: anyDelivered || proven });
  const outcomes = new Map<string, DeliveryOutcome>();
  let unknownWord: string | undefined;
  for (const token of tokens) {
    const item = items.get(token);
    if (item === undefined) continue;
    if (item.errorCode === undefined) outcomes.set(token, delivered);
    else if (item.errorCode === invalidRegistrationId) outcomes.set(token, invalid);
    else {
      outcomes.set(token, otherItemError);
      unknownWord ??= item.errorCode;
    }
  }
  return { verdict: { kind: 'tokens', others: noResult, outcomes }, unknownWord };
}

function reasonFor(code: string): ReasonOf<'oppo'> | 'Other' {
  if (code === '-1') return 'OppoServiceUnavailable';
  if (code === '-2') return 'OppoFlowControl';
  return reasonOf('oppo', `Oppo${code}`);
}

function retry(reason: ReasonOf<'oppo'> | 'Other', retryAfterMs: number | undefined): DeliveryOutcome {
  return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
}

/** A code as text: OPPO sends numbers; a numeric string is read the same. */
function wordOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value === 'string' && /^-?\d{1,9}$/.test(value)) return String(Number(value));
  return undefined;
}

/** `data` of a batch answer: `[{messageId, registrationId, errorCode?, errorMessage?}]`, by registration id. */
function itemsOf(data: unknown): ReadonlyMap<string, OppoItemResult> | undefined {
  if (!Array.isArray(data)) return undefined;
  const items = new Map<string, OppoItemResult>();
  for (const entry of data as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { registrationId, errorCode } = entry as { registrationId?: unknown; errorCode?: unknown };
    if (typeof registrationId !== 'string') continue;
    const word = errorCode === undefined || errorCode === null ? undefined : (wordOf(errorCode) ?? (typeof errorCode === 'string' ? errorCode.slice(0, 32) : 'unreadable'));
    // An errorCode of 0 says no error.
    items.set(registrationId, { errorCode: word === '0' ? undefined : word });
  }
  return items;
}
