import { loggedOutcomes, type LoggedOutcome } from '../../core/ports/delivery-log-store.ts';
import { ErrorCode, fail } from '../../core/errors.ts';
import { deliveryReasons } from '../gateways/delivery-reasons.ts';

/** Entries a page holds unless `limit` says otherwise, and at most. */
export const defaultDeliveryLimit = 100;
export const maxDeliveryLimit = 1000;

/** What a listing of the delivery log asks for: `?outcome=&reason=&limit=&cursor=`. */
export interface DeliveryFilter {
  /** The outcomes listed, in the log's order; every one when the request names none. */
  outcomes: readonly LoggedOutcome[];
  /** Only entries with this reason (delivered entries have none). */
  reason: string | null;
  limit: number;
  /** Where the page starts: the `nextCursor` of the page before; null for the first. */
  cursor: string | null;
}

const reasons = new Set<string>(deliveryReasons);

/**
 * Reads a listing's parameters (URL query or gRPC fields). `outcome` is one
 * of `delivered`, `invalidToken`, `failed`, or several separated by commas;
 * `reason` one of the documented reasons; `limit` 1 to 1000. Anything else
 * is 400 with code 1 and says what is wrong.
 */
export function readDeliveryFilter(params: Readonly<Record<string, unknown>>): DeliveryFilter {
  const outcomeText = text(params, 'outcome');
  let outcomes: readonly LoggedOutcome[] = loggedOutcomes;
  if (outcomeText !== undefined) {
    const named = outcomeText.split(',');
    for (const outcome of named) {
      if (!(loggedOutcomes as readonly string[]).includes(outcome)) fail(ErrorCode.internal, `outcome must be delivered, invalidToken or failed (or several, separated by commas), not ${JSON.stringify(outcome.slice(0, 40))}`);
    }
    outcomes = loggedOutcomes.filter((outcome) => named.includes(outcome));
  }
  const reason = text(params, 'reason') ?? null;
  if (reason !== null && !reasons.has(reason)) fail(ErrorCode.internal, `reason must be one of the documented reasons (docs/push-engine.md, "Reasons"), not ${JSON.stringify(reason.slice(0, 60))}`);
  const limitText = text(params, 'limit');
  let limit = defaultDeliveryLimit;
  if (limitText !== undefined) {
    limit = /^\d{1,7}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= maxDeliveryLimit)) fail(ErrorCode.internal, `limit must be an integer from 1 to ${maxDeliveryLimit}`);
  }
  const cursor = text(params, 'cursor') ?? null;
  return { outcomes, reason, limit, cursor };
}

/** A parameter given once as text (a number is taken as its text); absent or empty: undefined. */
function text(params: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') fail(ErrorCode.internal, `${name} must be given once, as text`);
  return value;
}
