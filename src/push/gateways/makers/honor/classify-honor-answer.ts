import { reasonOf, type ReasonOf } from '../../delivery-reasons.ts';
import { delivered, type DeliveryOutcome } from '../../delivery.ts';
import { everyToken, type BatchVerdict } from '../maker.ts';
import { codeMeaning } from '../shared/code-meaning.ts';

/** What an Honor answer says: `{code, message, data: {sendResult, requestId, failTokens, expireTokens}}`, its words as sent. */
export interface HonorAnswer {
  status: number;
  /** The result code as digits (Honor sends a number, `200`); undefined when the body had none. */
  code: string | undefined;
  /** `data.sendResult`; undefined when absent. */
  sendResult: boolean | undefined;
  /** `data.expireTokens`: tokens no longer registered. */
  expireTokens: readonly string[];
  /** `data.failTokens`: tokens not sent for another reason. */
  failTokens: readonly string[];
  /** From `Retry-After`. */
  retryAfterMs?: number | undefined;
}

type Verdict = 'retry' | 'failed' | 'auth';

/**
 * Result codes other than 200 and what they call for. Honor's own table is
 * not public; these are the codes of the HMS API Honor's service forked
 * from, read as HMS reads them (docs/push-engine.md, "Honor Push"). 80300007
 * is apart (every token invalid).
 */
const verdictByCode: Readonly<Record<string, Verdict>> = {
  '80200001': 'auth',
  '80200003': 'auth',
  '80300008': 'failed',
  '81000001': 'retry',
};

/** Reads an Honor answer body; missing or malformed parts are undefined or empty. */
export function readHonorAnswer(status: number, body: Buffer, retryAfterMs?: number): HonorAnswer {
  let parsed: { code?: unknown; data?: unknown } = {};
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null) parsed = value;
  } catch {
    // No code: judged by the status.
  }
  const code = typeof parsed.code === 'number' || typeof parsed.code === 'string' ? String(parsed.code) : undefined;
  const data = (typeof parsed.data === 'object' && parsed.data !== null ? parsed.data : {}) as { sendResult?: unknown; expireTokens?: unknown; failTokens?: unknown };
  return {
    status,
    code,
    sendResult: typeof data.sendResult === 'boolean' ? data.sendResult : undefined,
    expireTokens: strings(data.expireTokens),
    failTokens: strings(data.failTokens),
    retryAfterMs,
  };
}

const expired: DeliveryOutcome = Object.freeze({ kind: 'invalid-token', reason: 'HonorExpireToken', unregistered: true });
const failToken: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'HonorFailToken' });
const sendFailed: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'HonorSendFailed' });

/**
 * What an Honor answer to a request for `tokens` says of each:
 *
 * - code 200: the tokens in `expireTokens` are no longer registered and their
 *   installations removed (Honor names each one, so even a request of one
 *   token speaks of that token); those in `failTokens` failed
 *   (`HonorFailToken`); every other token was delivered, unless
 *   `sendResult` is false, when they failed too (`HonorSendFailed`);
 * - 80300007 (every token invalid, as HMS): invalid tokens, removed only for
 *   a request of that one token through a profile that has delivered before,
 *   since another app's credentials get the same answer;
 * - 80200001, 80200003 and a 401: the access token was refused: a new one
 *   and one more try;
 * - 81000001, and without a known code 503 or 429 (flow control) and other
 *   5xx: retry, after `Retry-After` when given;
 * - 80300008: failed. Any other code is `Other`, judged by the status.
 */
export function classifyHonorAnswer(answer: HonorAnswer, tokens: readonly string[], proven: boolean): BatchVerdict {
  const { code, status } = answer;
  if (code === '200') return perToken(answer, tokens);
  if (code === '80300007') return everyToken({ kind: 'invalid-token', reason: 'Honor80300007', unregistered: tokens.length === 1 && proven });
  const verdict = codeMeaning(verdictByCode, code);
  const reason = code === undefined ? undefined : reasonOf('honor', `Honor${code}`);
  if (verdict === 'auth') return { kind: 'auth-rejected', outcome: { kind: 'failed', reason: reason ?? 'Other' } };
  if (verdict === 'retry') return everyToken(retry(reason ?? 'Other', answer.retryAfterMs));
  if (verdict === 'failed') return everyToken({ kind: 'failed', reason: reason ?? 'Other' });
  // No code Herald knows: the status decides.
  if (status === 401) return { kind: 'auth-rejected', outcome: { kind: 'failed', reason: code === undefined ? 'HonorUnauthorized' : 'Other' } };
  if (status === 503 || status === 429) return everyToken(retry(code === undefined ? 'HonorFlowControl' : 'Other', answer.retryAfterMs));
  if (status >= 500) return everyToken(retry(code === undefined ? 'HonorServerError' : 'Other', answer.retryAfterMs));
  // A 200 without a readable result cannot say which tokens were delivered: failed, not sent again.
  return everyToken({ kind: 'failed', reason: 'Other' });
}

function perToken(answer: HonorAnswer, tokens: readonly string[]): BatchVerdict {
  const outcomes = new Map<string, DeliveryOutcome>();
  const expire = new Set(answer.expireTokens);
  const fail = new Set(answer.failTokens);
  for (const token of tokens) {
    if (expire.has(token)) outcomes.set(token, expired);
    else if (fail.has(token)) outcomes.set(token, failToken);
  }
  return { kind: 'tokens', others: answer.sendResult === false ? sendFailed : delivered, outcomes };
}

function strings(value: unknown): readonly string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function retry(reason: ReasonOf<'honor'> | 'Other', retryAfterMs: number | undefined): DeliveryOutcome {
  return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
}
