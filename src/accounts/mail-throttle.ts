import { ErrorCode, HeraldError } from '../core/errors.ts';
import { appKey } from '../core/ports/coordination.ts';
import type { AccountDeps } from './account-deps.ts';

/** At most one account email of a kind per address per minute, so the endpoints cannot be used to flood an inbox. */
export const mailIntervalMs = 60_000;

/** Claims the send slot for an address; answers a function that gives it back when the send failed. */
export async function throttleMail(deps: AccountDeps, appId: string, kind: string, address: string): Promise<() => Promise<void>> {
  const key = appKey(appId, 'mail-sent', kind, address);
  const first = await deps.coord.setIfAbsent(key, '1', mailIntervalMs);
  if (!first) throw new HeraldError(ErrorCode.tooManyRequests, 'An email was sent to this address less than a minute ago; try again later.');
  return () => deps.coord.delete(key);
}

/**
 * Sends a mail the caller explicitly asked for and waits for the server to take
 * it, so a delivery failure reaches the caller (503) and frees the send slot.
 */
export async function sendRequestedMail(release: () => Promise<void>, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (error) {
    await release();
    throw error;
  }
}
