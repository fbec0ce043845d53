import type { Caller } from '../accounts/account-deps.ts';
import { ErrorCode, HeraldError, fail } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import type { Query } from '../query/query.ts';
import { runQuery } from '../query/run-query.ts';
import type { DeviceDeps, DeviceResult } from './device-deps.ts';
import { withTokenCaseInWhere } from './device-token-case.ts';
import { CallerIdentity, requireClassPermission } from './installation-access.ts';
import { planInstallationScan, scanInstallations } from './installation-scan.ts';
import { protectedInstallationFields, viewInstallation } from './installation-view.ts';
import { withoutStrayUser } from './user-pointers.ts';

/**
 * GET /1.1/installations: the master key, or the app's find permission on
 * `_Installation` (then only installations whose ACL lets the caller read).
 * The store is read page by page, through the channel or device-type index
 * when the `where` pins one, and `runQuery` keeps only `skip + limit`
 * candidates, so memory does not grow with the app's installations.
 * iOS tokens in the `where` are compared in lower case, as they are stored,
 * and a stored `user` that is not a single pointer is not matched.
 */
export async function queryInstallations(deps: DeviceDeps, caller: Caller, query: Query): Promise<DeviceResult> {
  requireClassPermission(caller, 'find');
  const protectedFields = protectedInstallationFields(caller.app.config);
  rejectHiddenFields(query, caller.master, protectedFields);
  let readableBy: string[] | null = null;
  if (!caller.master) {
    const userId = await new CallerIdentity(deps.store, caller).userId();
    readableBy = userId === null ? ['*'] : ['*', userId];
  }
  const where = withTokenCaseInWhere(query.where);
  const source = matchable(scanInstallations(deps.store.installations, caller.app.config.id, planInstallationScan(where)));
  const found = await runQuery(source, { ...query, where, readableBy });
  const results = found.results.map((installation) => viewInstallation(installation, { master: caller.master, protectedFields }));
  return { status: 200, body: found.count === undefined ? { results } : { results, count: found.count } };
}

async function* matchable(installations: AsyncIterable<StoredObject>): AsyncGenerator<StoredObject> {
  for await (const installation of installations) yield withoutStrayUser(installation);
}

/**
 * Reserved fields cannot be matched or sorted on (105); protected ones only
 * with the master key (403), or a query could probe them. Also the rule for
 * the `where` of a push sent with an ordinary key.
 */
export function rejectHiddenFields(query: Pick<Query, 'where' | 'order'>, master: boolean, protectedFields: readonly string[]): void {
  const heads: string[] = query.order.map((key) => key.path[0] ?? '');
  const visit = (condition: Query['where']): void => {
    if (!condition) return;
    if (condition.kind === 'field') heads.push(condition.path[0] ?? '');
    else condition.conditions.forEach(visit);
  };
  visit(query.where);
  for (const head of heads) {
    if (head.startsWith('_')) fail(ErrorCode.invalidFieldName, `cannot query or sort on ${head}`);
    if (!master && protectedFields.includes(head)) {
      throw new HeraldError(ErrorCode.forbidden, `${head} is a protected field: only the master key may query or sort on it.`, { status: 403 });
    }
  }
}
