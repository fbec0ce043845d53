import { reasonOf, type ReasonOf } from '../../delivery-reasons.ts';
import { delivered, type DeliveryOutcome } from '../../delivery.ts';
import { everyToken, type BatchVerdict } from '../maker.ts';
import { codeMeaning } from '../shared/code-meaning.ts';

/** What a vivo answer says: `{result, desc, taskId, invalidUser | invalidUsers}`, its words as sent. */
export interface VivoAnswer {
  status: number;
  /** The result code as text (`"0"`, `"10070"`); undefined when the body had none. */
  result: string | undefined;
  /** `taskId` of a `/message/saveListPayload` answer. */
  taskId: string | undefined;
  /** The statuses `invalidUser` (single send) or `invalidUsers` (list send) gave, by regId. */
  invalidUsers: ReadonlyMap<string, number>;
  /** From `Retry-After`. */
  retryAfterMs?: number | undefined;
}

/** A verdict, and the word to log when it counts one as `Other`. */
export interface VivoReading {
  verdict: BatchVerdict;
  unknownWord: string | undefined;
}

type Verdict = 'retry' | 'failed' | 'auth' | 'quota' | 'invalid' | 'kept';

/**
 * Result codes and what they call for (vivo's server API and SDK;
 * docs/push-engine.md, "vivo Push"). 10070 and 10073 (operational and
 * system messages over the day's total) and 10252 (list messages saved over
 * the day's limit) spend the profile's quota; vivo asks callers not to call
 * the endpoint again that day.
 */
const verdictByResult: Readonly<Record<string, Verdict>> = {
  '10000': 'auth',
  '10043': 'failed',
  '10045': 'failed',
  '10050': 'failed',
  '10051': 'failed',
  '10054': 'failed',
  '10055': 'failed',
  '10056': 'failed',
  '10057': 'failed',
  '10058': 'failed',
  '10059': 'failed',
  '10060': 'failed',
  '10061': 'failed',
  '10062': 'failed',
  '10063': 'failed',
  '10064': 'failed',
  '10065': 'failed',
  '10066': 'failed',
  '10067': 'failed',
  '10068': 'failed',
  '10069': 'failed',
  '10070': 'quota',
  '10071': 'failed',
  '10072': 'retry',
  '10073': 'quota',
  '10094': 'failed',
  '10095': 'failed',
  '10096': 'failed',
  '10097': 'failed',
  '10103': 'failed',
  '10104': 'failed',
  '10150': 'failed',
  '10151': 'failed',
  '10152': 'failed',
  '10153': 'failed',
  '10155': 'failed',
  '10200': 'failed',
  '10201': 'failed',
  '10202': 'failed',
  '10203': 'failed',
  '10204': 'failed',
  '10205': 'failed',
  '10206': 'failed',
  '10207': 'failed',
  '10252': 'quota',
  '10302': 'invalid',
  '10304': 'failed',
  '10305': 'failed',
  '10306': 'failed',
  '10311': 'kept',
  '10352': 'failed',
  '10353': 'failed',
  '11000': 'failed',
};

/** Codes of `/message/pushToList` that say the saved message (its taskId) is unknown or expired: saved again. */
export const vivoTaskGone: ReadonlySet<string> = new Set(['10152', '10155']);

/** Reads a vivo answer body; missing or malformed parts are undefined or empty. */
export function readVivoAnswer(status: number, body: Buffer, retryAfterMs?: number): VivoAnswer {
  let parsed: { result?: unknown; taskId?: unknown; invalidUser?: unknown; invalidUsers?: unknown } = {};
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null) parsed = value;
  } catch {
    // No result: judged by the status.
  }
  const invalidUsers = new Map<string, number>();
  const listed = Array.isArray(parsed.invalidUsers) ? (parsed.invalidUsers as unknown[]) : [parsed.invalidUser];
  for (const user of listed) {
    if (typeof user !== 'object' || user === null) continue;
    const { userid, status: said } = user as { userid?: unknown; status?: unknown };
    const statusCode = Number(said);
    if ((typeof userid === 'string' || typeof userid === 'number') && Number.isInteger(statusCode)) invalidUsers.set(String(userid), statusCode);
  }
  const taskId = typeof parsed.taskId === 'string' || typeof parsed.taskId === 'number' ? String(parsed.taskId) : undefined;
  return { status, result: wordOf(parsed.result), taskId, invalidUsers, retryAfterMs };
}

/**
 * What a vivo answer to a send for `tokens` says of each:
 *
 * - result 0: each regId `invalidUser(s)` lists ends by its status: 1 (no
 *   such regId) invalid, and removed when another regId of the request was
 *   delivered or the profile has delivered before (another app's
 *   credentials would find none); 2 (uninstalled, unsubscribed, data
 *   cleared) invalid and removed; 3 (ninety days offline) invalid, kept; 4
 *   (not a test device) failed. The others were delivered;
 * - 10302 (the regId of a single send is invalid): invalid, removed only
 *   for a request of that one regId through a profile that delivered before;
 *   10311 (cannot be pushed to now): invalid, kept;
 * - 10000: the authToken was refused: a new one and one more try;
 * - 10072 (too fast), and without a result a 5xx or 429: retry;
 * - 10070, 10073, 10252: the profile's quota for the day is spent;
 * - any other documented code: failed. A code vivo does not document is
 *   `Other`, judged by the status.
 */
export function classifyVivoAnswer(answer: VivoAnswer, tokens: readonly string[], proven: boolean): VivoReading {
  const { result, status } = answer;
  if (result === '0' && status === 200) return perUser(answer.invalidUsers, tokens, proven);
  const verdict = codeMeaning(verdictByResult, result);
  if (verdict !== undefined && result !== undefined) {
    const reason = reasonOf('vivo', `Vivo${result}`);
    const read = (value: BatchVerdict): VivoReading => ({ verdict: value, unknownWord: undefined });
    switch (verdict) {
      case 'quota':
        return read({ kind: 'quota-exhausted', word: `Vivo${result}` });
      case 'auth':
        return read({ kind: 'auth-rejected', outcome: { kind: 'failed', reason } });
      case 'retry':
        return read(everyToken(retry(reason, answer.retryAfterMs)));
      case 'invalid':
        return read(everyToken({ kind: 'invalid-token', reason, unregistered: tokens.length === 1 && proven }));
      case 'kept':
        return read(everyToken({ kind: 'invalid-token', reason, unregistered: false }));
      case 'failed':
        return read(everyToken({ kind: 'failed', reason }));
    }
  }
  // No result Herald knows: the status decides.
  if (status >= 500 || status === 429) return { verdict: everyToken(retry(result === undefined ? 'VivoServerError' : 'Other', answer.retryAfterMs)), unknownWord: result };
  // An answer Herald cannot read cannot say which regIds were delivered: failed, not sent again.
  return { verdict: everyToken({ kind: 'failed', reason: 'Other' }), unknownWord: result ?? String(status) };
}

const uninstalled: DeliveryOutcome = Object.freeze({ kind: 'invalid-token', reason: 'VivoUninstalled', unregistered: true });
const inactive: DeliveryOutcome = Object.freeze({ kind: 'invalid-token', reason: 'VivoInactive', unregistered: false });
const notTestDevice: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'VivoNotTestDevice' });
const otherStatus: DeliveryOutcome = Object.freeze({ kind: 'failed', reason: 'Other' });

function perUser(invalidUsers: ReadonlyMap<string, number>, tokens: readonly string[], proven: boolean): VivoReading {
  if (invalidUsers.size === 0) return { verdict: everyToken(delivered), unknownWord: undefined };
  const anyDelivered = tokens.some((token) => !invalidUsers.has(token));
  const notFound: DeliveryOutcome = Object.freeze({ kind: 'invalid-token', reason: 'VivoUserNotFound', unregistered: anyDelivered || proven });
  const outcomes = new Map<string, DeliveryOutcome>();
  let unknownWord: string | undefined;
  for (const token of tokens) {
    const said = invalidUsers.get(token);
    if (said === undefined) continue;
    if (said === 1) outcomes.set(token, notFound);
    else if (said === 2) outcomes.set(token, uninstalled);
    else if (said === 3) outcomes.set(token, inactive);
    else if (said === 4) outcomes.set(token, notTestDevice);
    else {
      outcomes.set(token, otherStatus);
      unknownWord ??= `status ${said}`;
    }
  }
  return { verdict: { kind: 'tokens', others: delivered, outcomes }, unknownWord };
}

function retry(reason: ReasonOf<'vivo'> | 'Other', retryAfterMs: number | undefined): DeliveryOutcome {
  return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
}

/** A code as text: vivo sends numbers; a numeric string is read the same. */
function wordOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value === 'string' && /^\d{1,9}$/.test(value)) return String(Number(value));
  return undefined;
}
