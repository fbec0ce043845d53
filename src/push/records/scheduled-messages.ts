import type { Caller } from '../../accounts/account-deps.ts';
import { ErrorCode, HeraldError, fail } from '../../core/errors.ts';
import type { PushDeps } from '../push-deps.ts';
import type { ApiAnswer } from './notifications.ts';

/** SPEC.md, Authentication rule 5: listing and cancelling scheduled pushes always need the master key. */
function requireMaster(caller: Caller): void {
  if (!caller.master) throw new HeraldError(ErrorCode.forbidden, 'Scheduled pushes need the master key.', { status: 403 });
}

/** `GET /1.1/scheduledPushMessages`: `{results: [{id, expire_time, push_msg, createdAt}]}`, soonest first. */
export async function listScheduledPushes(deps: PushDeps, caller: Caller): Promise<ApiAnswer> {
  requireMaster(caller);
  const entries = await deps.store.scheduled.listForApp(caller.app.config.id);
  return {
    status: 200,
    body: { results: entries.map((entry) => ({ id: entry.id, expire_time: entry.dueAt, push_msg: entry.message, createdAt: entry.createdAt })) },
  };
}

/**
 * `DELETE /1.1/scheduledPushMessages/<id>`: cancels a push still waiting for
 * its push_time; its record goes too. Answers `{}`; 101 for an id that is not
 * waiting (unknown, cancelled, or already sent).
 */
export async function cancelScheduledPush(deps: PushDeps, caller: Caller, id: number): Promise<ApiAnswer> {
  requireMaster(caller);
  const appId = caller.app.config.id;
  const entry = await deps.store.scheduled.remove(appId, id);
  if (entry === null) fail(ErrorCode.objectNotFound, 'No scheduled push with this id.');
  await deps.store.pushes.delete(appId, entry.pushId);
  return { status: 200, body: {} };
}
