import { reasonOf, type ReasonOf } from '../../delivery-reasons.ts';
import { delivered, type DeliveryOutcome } from '../../delivery.ts';
import { everyToken, type BatchVerdict } from '../maker.ts';
import { codeMeaning } from '../shared/code-meaning.ts';

/** What a Meizu answer says: `{code, message, value, msgId}`, its words as sent. */
export interface MeizuAnswer {
  status: number;
  /** The result code (Meizu sends it as text, `"200"`); undefined when the body had none. */
  code: string | undefined;
  /** `value` when it is the per-pushId map of a send: code → pushIds. */
  value: Readonly<Record<string, readonly string[]>>;
  /** From `Retry-After`. */
  retryAfterMs?: number | undefined;
}

type Verdict = 'retry' | 'failed' | 'quota';

/** Top-level codes other than 200 and what they call for (Meizu's "Api returnCode" table; docs/push-engine.md, "Meizu Flyme Push"). 110002 and 110003 are apart. */
const verdictByCode: Readonly<Record<string, Verdict>> = {
  '500': 'retry',
  '1001': 'retry',
  '1003': 'retry',
  '1005': 'failed',
  '1006': 'failed',
  '110000': 'failed',
  '110001': 'failed',
  '110004': 'failed',
  '110009': 'failed',
  '110010': 'retry',
  '110019': 'quota',
  '110031': 'failed',
  '110032': 'failed',
  '110033': 'failed',
  '110051': 'quota',
  '110053': 'failed',
};

const removed = (reason: 'Meizu110002' | 'Meizu110003'): DeliveryOutcome => ({ kind: 'invalid-token', reason, unregistered: true });

/** Codes of the per-pushId map and the outcome of a pushId it lists. */
const outcomeByMapCode: Readonly<Record<string, DeliveryOutcome>> = {
  '110002': removed('Meizu110002'),
  '110003': removed('Meizu110003'),
  '110010': { kind: 'failed', reason: 'MeizuSwitchedOff' },
  '110011': { kind: 'failed', reason: 'Meizu110011' },
  '201': { kind: 'failed', reason: 'Meizu201' },
  '520': { kind: 'failed', reason: 'Meizu520' },
  '501': { kind: 'retry', reason: 'Meizu501' },
  '513': { kind: 'retry', reason: 'Meizu513' },
  '518': { kind: 'retry', reason: 'Meizu518' },
  '519': { kind: 'retry', reason: 'Meizu519' },
};

const unknownMapCode: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'Other' });

/** Reads a Meizu answer body; missing or malformed parts are undefined or empty. */
export function readMeizuAnswer(status: number, body: Buffer, retryAfterMs?: number): MeizuAnswer {
  let parsed: { code?: unknown; value?: unknown } = {};
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null) parsed = value;
  } catch {
    // No code: judged by the status.
  }
  const code = typeof parsed.code === 'string' || typeof parsed.code === 'number' ? String(parsed.code) : undefined;
  const value: Record<string, readonly string[]> = {};
  if (typeof parsed.value === 'object' && parsed.value !== null && !Array.isArray(parsed.value)) {
    for (const [key, ids] of Object.entries(parsed.value as Record<string, unknown>)) {
      if (Array.isArray(ids)) value[key] = ids.filter((id): id is string => typeof id === 'string');
    }
  }
  return { status, code, value, retryAfterMs };
}

/**
 * What a Meizu answer to a request for `pushIds` says of each:
 *
 * - code 200: Meizu lists only the pushIds it did not take, by code
 *   ("只返回推送非法的pushId"): 110002 (not registered) and 110003 (illegal)
 *   are invalid and their installations removed, since Meizu names each one;
 *   110010 (the user switched notifications off), 110011 (the device's public
 *   messages for the day), 201 and 520 (folded) failed; 501, 513, 518 (over
 *   the rate) and 519 retried; any other code in the map failed `Other`.
 *   The pushIds not listed were delivered;
 * - 110002 or 110003 at the top level (the whole request): invalid, removed
 *   only for a request of that one pushId through a profile that has
 *   delivered before, as a profile with another app's credentials may answer
 *   so for every device;
 * - 110019 and 110051: the app's quota is spent; the profile fails
 *   `DailyQuotaExceeded` until midnight in China;
 * - 500, 1001, 1003, 110010 (too fast), and without a known code 429 and 5xx:
 *   retry, after `Retry-After` when given;
 * - the other documented codes (1006: the signature, so the App Secret, is
 *   wrong): failed, nothing removed. An undocumented code is `Other`, judged
 *   by the status.
 */
export function classifyMeizuAnswer(answer: MeizuAnswer, pushIds: readonly string[], proven: boolean): BatchVerdict {
  const { code, status } = answer;
  if (code === '200') return perPushId(answer.value, pushIds);
  if (code === '110002' || code === '110003') {
    return everyToken({ kind: 'invalid-token', reason: `Meizu${code}`, unregistered: pushIds.length === 1 && proven });
  }
  const verdict = codeMeaning(verdictByCode, code);
  const reason = code === undefined ? undefined : reasonOf('meizu', `Meizu${code}`);
  if (verdict === 'quota') return { kind: 'quota-exhausted', word: reason ?? 'Other' };
  if (verdict === 'retry') return everyToken(retry(reason ?? 'Other', answer.retryAfterMs));
  if (verdict === 'failed') return everyToken({ kind: 'failed', reason: reason ?? 'Other' });
  // No code Herald knows: the status decides.
  if (status === 429) return everyToken(retry(code === undefined ? 'MeizuTooManyRequests' : 'Other', answer.retryAfterMs));
  if (status >= 500) return everyToken(retry(code === undefined ? 'MeizuServerError' : 'Other', answer.retryAfterMs));
  // A 200 without a readable result cannot say which pushIds were delivered: failed, not sent again.
  return everyToken({ kind: 'failed', reason: 'Other' });
}

/** Codes of a 200's per-pushId map that Herald does not know (their pushIds count `Other`), for the log. */
export function unknownMapCodes(answer: MeizuAnswer): string[] {
  return answer.code === '200' ? Object.keys(answer.value).filter((mapCode) => codeMeaning(outcomeByMapCode, mapCode) === undefined) : [];
}

function perPushId(value: Readonly<Record<string, readonly string[]>>, pushIds: readonly string[]): BatchVerdict {
  const sent = new Set(pushIds);
  const outcomes = new Map<string, DeliveryOutcome>();
  for (const [mapCode, ids] of Object.entries(value)) {
    const outcome = codeMeaning(outcomeByMapCode, mapCode) ?? unknownMapCode;
    for (const id of ids) if (sent.has(id)) outcomes.set(id, outcome);
  }
  return { kind: 'tokens', others: delivered, outcomes };
}

function retry(reason: ReasonOf<'meizu'> | 'Other', retryAfterMs: number | undefined): DeliveryOutcome {
  return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
}
