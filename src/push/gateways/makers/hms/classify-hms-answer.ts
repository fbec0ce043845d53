import { reasonOf, type ReasonOf } from '../../delivery-reasons.ts';
import { delivered, type DeliveryOutcome } from '../../delivery.ts';
import { everyToken, type BatchVerdict } from '../maker.ts';
import { codeMeaning } from '../shared/code-meaning.ts';

/** What an HMS answer says: `{code, msg, requestId}`, its words as sent. */
export interface HmsAnswer {
  status: number;
  /** The result code (HMS sends it as a string, `"80000000"`); undefined when the body had none. */
  code: string | undefined;
  msg: string | undefined;
  /** From `Retry-After`. */
  retryAfterMs?: number | undefined;
}

type Verdict = 'retry' | 'failed' | 'auth';

/** Result codes and what they call for (Huawei's "下行消息" codes; docs/push-engine.md, "Huawei Push Kit"). */
const verdictByCode: Readonly<Record<string, Verdict>> = {
  '80100001': 'failed',
  '80100002': 'failed',
  '80100003': 'failed',
  '80100004': 'failed',
  '80100013': 'failed',
  '80100016': 'failed',
  '80100017': 'retry',
  '80100018': 'failed',
  '80200001': 'auth',
  '80200003': 'auth',
  '80300002': 'failed',
  '80300008': 'failed',
  '80300010': 'failed',
  '80300011': 'failed',
  '80300013': 'failed',
  '80600003': 'retry',
  '81000001': 'retry',
};

/** Reads an HMS answer body; missing or malformed parts are undefined. */
export function readHmsAnswer(status: number, body: Buffer, retryAfterMs?: number): HmsAnswer {
  let parsed: { code?: unknown; msg?: unknown } = {};
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null) parsed = value;
  } catch {
    // No code: judged by the status.
  }
  const code = typeof parsed.code === 'string' ? parsed.code : typeof parsed.code === 'number' ? String(parsed.code) : undefined;
  return { status, code, msg: typeof parsed.msg === 'string' ? parsed.msg : undefined, retryAfterMs };
}

/**
 * What an HMS answer to a request for `tokens` says of each:
 *
 * - 80000000: every token delivered;
 * - 80100000 (some tokens failed): the tokens its `msg` lists as illegal
 *   (`illegal_tokens`, or `illegalTokens` by kind) are invalid and their
 *   installations removed, since the same request proves the credentials
 *   work; the others were delivered; an unreadable list fails them all;
 * - 80300007 (every token invalid): invalid tokens; the installation is
 *   removed only when the request carried that one token and the profile has
 *   had a token accepted before, since a profile with another app's
 *   credentials answers 80300007 for every device;
 * - 80200001, 80200003 and a 401: the access token was refused: a new one
 *   and one more try;
 * - 80100017, 80600003, 81000001, and without a known code 503 or 429 (flow
 *   control) and other 5xx: retry, after `Retry-After` when given;
 * - any other code: failed. A code outside the documented ones is `Other`.
 */
export function classifyHmsAnswer(answer: HmsAnswer, tokens: readonly string[], proven: boolean): BatchVerdict {
  const { code, status } = answer;
  if (code === '80000000') return everyToken(delivered);
  if (code === '80100000') return partialSuccess(answer.msg, tokens);
  if (code === '80300007') return everyToken({ kind: 'invalid-token', reason: 'Hms80300007', unregistered: tokens.length === 1 && proven });
  const verdict = codeMeaning(verdictByCode, code);
  const reason = code === undefined ? undefined : reasonOf('hms', `Hms${code}`);
  if (verdict === 'auth') return { kind: 'auth-rejected', outcome: { kind: 'failed', reason: reason ?? 'Other' } };
  if (verdict === 'retry') return everyToken(retry(reason ?? 'Other', answer.retryAfterMs));
  if (verdict === 'failed') return everyToken({ kind: 'failed', reason: reason ?? 'Other' });
  // No code Herald knows: the status decides.
  if (status === 401) return { kind: 'auth-rejected', outcome: { kind: 'failed', reason: code === undefined ? 'HmsUnauthorized' : 'Other' } };
  if (status === 503 || status === 429) return everyToken(retry(code === undefined ? 'HmsFlowControl' : 'Other', answer.retryAfterMs));
  if (status >= 500) return everyToken(retry(code === undefined ? 'HmsServerError' : 'Other', answer.retryAfterMs));
  // A 200 without a readable result cannot say which tokens were delivered: failed, not sent again.
  return everyToken({ kind: 'failed', reason: 'Other' });
}

/** The tokens an 80100000 answer's `msg` lists as illegal: the v1 form `{"illegal_tokens": [...]}` or the newer `{"illegalTokens": {"<why>": [...]}}`. */
export function illegalTokens(msg: string | undefined): Set<string> | undefined {
  if (msg === undefined) return undefined;
  let parsed: { illegal_tokens?: unknown; illegalTokens?: unknown };
  try {
    parsed = JSON.parse(msg) as typeof parsed;
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const lists: unknown[] = [];
  if (Array.isArray(parsed.illegal_tokens)) lists.push(parsed.illegal_tokens);
  if (typeof parsed.illegalTokens === 'object' && parsed.illegalTokens !== null) lists.push(...Object.values(parsed.illegalTokens as Record<string, unknown>));
  if (lists.length === 0) return undefined;
  const found = new Set<string>();
  for (const list of lists) if (Array.isArray(list)) for (const token of list) if (typeof token === 'string') found.add(token);
  return found;
}

const illegal: DeliveryOutcome = Object.freeze({ kind: 'invalid-token', reason: 'HmsIllegalToken', unregistered: true });

function partialSuccess(msg: string | undefined, tokens: readonly string[]): BatchVerdict {
  const listed = illegalTokens(msg);
  if (listed === undefined) return everyToken({ kind: 'failed', reason: 'Hms80100000' });
  const outcomes = new Map<string, DeliveryOutcome>();
  for (const token of tokens) if (listed.has(token)) outcomes.set(token, illegal);
  return { kind: 'tokens', others: delivered, outcomes };
}

function retry(reason: ReasonOf<'hms'> | 'Other', retryAfterMs: number | undefined): DeliveryOutcome {
  return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
}
