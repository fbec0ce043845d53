import { ErrorCode, HeraldError } from '../../core/errors.ts';
import type { BatchRequest } from './batch-body.ts';

/**
 * The object endpoints a batch may reach: the collections and the objects of
 * users and installations, under either of their names. The hosted service's
 * SDKs batch only object reads and writes (`saveAll`, `fetchAll`,
 * `destroyAll`, long queries); everything else (login, SMS codes, emails,
 * password changes, pushes) is refused per request, so that a batch is never
 * a way to send 50 credential checks or mails in one HTTP request.
 */
const batchablePath = /^\/(?:users|classes\/_User|installations|classes\/_Installation)(?:\/[^/]+)?$/;

/** Where a batched request goes: its URLs under /1.1, with their query. */
export interface BatchTarget {
  /**
   * E.g. `/classes/_User/abc?fetchWhenSave=true`: what the routers mounted at
   * /1.1 see. Several for a DELETE of `<id>,<id>,...`, the SDKs' `destroyAll`
   * of several objects of one class: one DELETE per id, in order.
   */
  urls: string[];
}

/**
 * Resolves a batched request's path, with or without the `/1.1` prefix
 * (the SDKs send it with), and its `params` to a URL the routers can serve,
 * or answers the error for that request alone.
 */
export function batchTarget({ method, path, params }: Pick<BatchRequest, 'method' | 'path' | 'params'>): BatchTarget | HeraldError {
  const queryAt = path.indexOf('?');
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : path.slice(queryAt + 1));
  const local = pathname === '/1.1' || pathname.startsWith('/1.1/') ? pathname.slice('/1.1'.length) : pathname;
  if (local === '/batch') return new HeraldError(ErrorCode.internal, 'A batch cannot hold another batch.');
  if (!batchablePath.test(local)) {
    return new HeraldError(
      ErrorCode.internal,
      `${method} ${path.slice(0, 200)} cannot be sent in a batch: a batch holds reads and writes of users and installations (/1.1/users, /1.1/classes/_User, /1.1/installations, /1.1/classes/_Installation); send other requests on their own.`,
    );
  }
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    // As the SDKs put them in a URL: strings as they are, everything else (a `where`, a number) as JSON.
    query.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const search = query.toString();
  const withQuery = (pathOnly: string) => (search === '' ? pathOnly : `${pathOnly}?${search}`);
  const ids = method === 'DELETE' ? objectIds(local) : null;
  if (ids === null) return { urls: [withQuery(local)] };
  const collection = local.slice(0, local.lastIndexOf('/'));
  return { urls: ids.map((id) => withQuery(`${collection}/${id}`)) };
}

/** The ids of `/<collection>/<id>,<id>,...`, or null when the path names one object (or none). */
function objectIds(local: string): string[] | null {
  const last = local.slice(local.lastIndexOf('/') + 1);
  if (!last.includes(',')) return null;
  const ids = last.split(',').filter((id) => id !== '');
  return ids.length === 0 ? null : ids;
}
