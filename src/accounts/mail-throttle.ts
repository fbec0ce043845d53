import { ErrorCode, HeraldError } from '../core/errors.ts';
import type { AccountDeps } from './account-deps.ts';

/** At most one account email of a kind per address per minute, so the endpoints cannot be used to flood an inbox. */
export const mailIntervalMs = 60_000;

export async function throttleMail(deps: AccountDeps, appId: string, kind: string, address: string): Promise<void> {
  const first = await deps.coord.setIfAbsent(`app:${appId}:mail-sent:${kind}:${address}`, '1', mailIntervalMs);
  if (!first) throw new HeraldError(ErrorCode.tooManyRequests, 'An email was sent to this address less than a minute ago; try again later.');
}
