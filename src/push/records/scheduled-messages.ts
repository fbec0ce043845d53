import type { Caller } from '../../accounts/account-deps.ts';
import { ErrorCode, HeraldError, fail } from '../../core/errors.ts';
import type { PushDeps } from '../push-deps.ts';

/** SPEC.md, Authentication rule 5: listing and cancelling scheduled pushes always need the master key. */
function requireMaster(caller: Caller): void {
  if (!caller.master) throw new HeraldError(ErrorCode.forbidden, 'Scheduled pushes need the master key.', { status: 403 });
}

/** A waiting push as SPEC.md shows it: `expire_time` is its push_time in ms, `push_msg` what will be sent. */
export interface ScheduledPushView {
  id: number;
  expire_time: number;
  push_msg: Record<string, unknown>;
  createdAt: string;
}

/** `GET /1.1/scheduledPushMessages`: the app's waiting pushes, soonest first (REST wraps them in `{results}`). */
export async function listScheduledPushes(deps: PushDeps, caller: Caller): Promise<ScheduledPushView[]> {
  requireMaster(caller);
  const entries = await deps.store.scheduled.listForApp(caller.app.config.id);
  return entries.map((entry) => ({ id: entry.id, expire_time: entry.dueAt, push_msg: entry.message, createdAt: entry.createdAt }));
}

/**
 * `DELETE /1.1/scheduledPushMessages/<id>`: cancels a push still waiting for
 * its push_time; its record goes too. 101 for an id that is not waiting
 * (unknown, cancelled, or already sent).
 */
export async function cancelScheduledPush(deps: PushDeps, caller: Caller, id: number): Promise<void> {
  requireMaster(caller);
  const appId = caller.app.config.id;
  const entry = await deps.store.scheduled.remove(appId, id);
  if (entry === null) fail(ErrorCode.objectNotFound, 'No scheduled push with this id.');
  await deps.store.pushes.delete(appId, entry.pushId);
}
