import express, { Router, type Request, type Response } from 'express';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import { getPushRecord, listNotifications } from '../../push/records/notifications.ts';
import { requireObjectId } from '../../push/records/record-ids.ts';
import { cancelScheduledPush, listScheduledPushes } from '../../push/records/scheduled-messages.ts';
import { parseQuery } from '../../query/parse-query.ts';
import { roleAllows } from '../session/console-accounts.ts';
import { consoleHeaders } from '../security/console-headers.ts';
import { appPath } from '../views/layout.ts';
import { finalStatuses, pushStatuses, renderPushList, renderPushPage, renderScheduled, type PushFilters } from '../views/push-pages.ts';
import { allowChange, appOf, audit, consoleCaller, sendPage, signedInOf, type ConsoleContext } from './console-context.ts';
import { noticeText } from './notices.ts';

const pageSize = 50;
/** Failed devices a push's page lists at once; "More failures" follows the delivery log's cursor. */
const failurePageSize = 50;
/** How long one event stream stays open; the browser's EventSource then reconnects by itself. */
const streamMs = 10 * 60 * 1000;

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

function readFilters(query: Request['query']): PushFilters {
  const status = text(query.status, 16);
  const date = (value: unknown) => (/^\d{4}-\d{2}-\d{2}$/.test(text(value, 10)) ? text(value, 10) : '');
  const page = Number(text(query.page, 6));
  return {
    status: (pushStatuses as readonly string[]).includes(status) ? status : '',
    from: date(query.from),
    to: date(query.to),
    q: text(query.q, 200).trim(),
    page: Number.isInteger(page) && page >= 1 && page <= 2000 ? page : 1,
  };
}

/** The `where` of the push list's filters, in the query language of `GET /1.1/notifications`. */
function filterWhere(filters: PushFilters): Record<string, unknown> {
  const where: Record<string, unknown>[] = [];
  if (filters.status !== '') where.push({ status: filters.status });
  const range: Record<string, unknown> = {};
  if (filters.from !== '') range.$gte = { __type: 'Date', iso: `${filters.from}T00:00:00.000Z` };
  if (filters.to !== '') range.$lt = { __type: 'Date', iso: new Date(Date.parse(`${filters.to}T00:00:00.000Z`) + 86_400_000).toISOString() };
  if (Object.keys(range).length > 0) where.push({ createdAt: range });
  if (filters.q !== '') {
    const pattern = filters.q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    where.push({ $or: [{ objectId: filters.q }, { notificationId: filters.q }, ...['data.alert', 'data.ios.alert', 'data.android.alert'].map((path) => ({ [path]: { $regex: pattern } }))] });
  }
  return where.length === 0 ? {} : where.length === 1 ? (where[0] as Record<string, unknown>) : { $and: where };
}

/** The progress a push's event stream sends: what gRPC WatchPush sends, plus the reasons. */
function progressOf(push: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const counts: Record<string, number> = {};
  for (const name of ['devices', 'successes', 'errors', 'invalidTokens', 'iosSuccesses', 'androidSuccesses']) counts[name] = Number(push[name] ?? 0);
  const reasons = Object.entries((push.errorReasons ?? {}) as Record<string, number>)
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count);
  return { status: push.status, counts, reasons, errorMessage: typeof push.errorMessage === 'string' ? push.errorMessage : null };
}

/** Push records, one push's page and its live progress, scheduled pushes. */
export function pushRoutes(ctx: ConsoleContext): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: 4 * 1024, parameterLimit: 5 });
  const pushDeps = ctx.deps.push;
  const pushIdOf = (req: Request) => requireObjectId(String(req.params.pushId), 'push record');

  router.get('/pushes', async (req, res) => {
    const app = appOf(res);
    const filters = readFilters(req.query);
    const query = parseQuery({ where: JSON.stringify(filterWhere(filters)), limit: String(pageSize + 1), skip: String((filters.page - 1) * pageSize) });
    const { results } = await listNotifications(pushDeps, consoleCaller(app), query);
    sendPage(res, 200, { title: 'Pushes', section: 'pushes', notice: noticeText(req.query.notice), body: renderPushList(app.config.id, filters, results.slice(0, pageSize), results.length > pageSize) });
  });

  router.get('/pushes/:pushId', async (req, res) => {
    const app = appOf(res);
    const push = await getPushRecord(pushDeps, consoleCaller(app), pushIdOf(req));
    const device = text(req.query.device, 4096).trim();
    // The delivery log's own cursor (opaque, checked by the log: a bad one is 400).
    const cursor = text(req.query.failures, 1024).trim();
    const [failures, explanation] = await Promise.all([
      ctx.insight.failures(app, push, { limit: failurePageSize, cursor: cursor === '' ? null : cursor }),
      device === '' ? Promise.resolve(undefined) : ctx.insight.explain(app, String(push.objectId), device),
    ]);
    sendPage(res, 200, { title: 'Push', section: 'pushes', notice: noticeText(req.query.notice), body: renderPushPage({ appId: app.config.id, push, failures, failuresFrom: cursor, device, explanation }) });
  });

  router.get('/pushes/:pushId/events', async (req, res) => {
    const app = appOf(res);
    const pushId = pushIdOf(req);
    // The first read answers a missing push with the usual 404, before the stream starts.
    let push: Readonly<Record<string, unknown>> | undefined = await getPushRecord(pushDeps, consoleCaller(app), pushId);
    res.writeHead(200, { ...consoleHeaders, 'Content-Type': 'text/event-stream; charset=utf-8', 'X-Accel-Buffering': 'no' });
    res.write('retry: 2000\n\n');
    watchPush(ctx, req, res, async () => {
      const current = push ?? (await getPushRecord(pushDeps, consoleCaller(app), pushId));
      push = undefined;
      return current;
    });
  });

  router.get('/scheduled', async (req, res) => {
    const app = appOf(res);
    const { account, session } = signedInOf(res);
    const entries = await listScheduledPushes(pushDeps, consoleCaller(app));
    sendPage(res, 200, { title: 'Scheduled pushes', section: 'scheduled', notice: noticeText(req.query.notice), body: renderScheduled(app.config.id, entries, session.csrf, roleAllows(account.role, 'cancel')) });
  });

  router.post('/scheduled/:scheduledId/cancel', form, allowChange(ctx, 'cancel', 'push.cancel-scheduled'), async (req, res) => {
    const app = appOf(res);
    const { account } = signedInOf(res);
    const id = String(req.params.scheduledId);
    if (!/^\d{1,16}$/.test(id)) throw new HeraldError(ErrorCode.objectNotFound, 'No scheduled push with this id.');
    await cancelScheduledPush(pushDeps, consoleCaller(app), Number(id));
    await audit(ctx, { actor: account.username, action: 'push.cancel-scheduled', app: app.config.id, target: id });
    res.redirect(303, appPath(app.config.id, '/scheduled?notice=cancelled'));
  });
  return router;
}

/**
 * Writes a push's progress as server-sent events, read from the same
 * source as gRPC WatchPush (the push record, every `watchIntervalMs`): a
 * `progress` event at once and on each change, `end` after a final status,
 * `gone` when the push is cancelled or deleted. Stops when the browser
 * goes, when the console closes, and after `streamMs` (the browser then
 * reconnects).
 */
function watchPush(ctx: ConsoleContext, req: Request, res: Response, read: () => Promise<Readonly<Record<string, unknown>>>): void {
  let timer: NodeJS.Timeout | undefined;
  let over = false;
  let last = '';
  const startedAt = Date.now();
  const stop = () => {
    if (over) return;
    over = true;
    clearTimeout(timer);
    ctx.closing.removeEventListener('abort', stop);
    res.end();
  };
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  req.on('close', stop);
  ctx.closing.addEventListener('abort', stop);
  if (ctx.closing.aborted) return stop();
  const tick = async () => {
    try {
      const progress = progressOf(await read());
      if (over) return;
      const seen = JSON.stringify(progress);
      if (seen !== last) {
        last = seen;
        send('progress', progress);
      }
      if (finalStatuses.has(progress.status)) {
        send('end', {});
        return stop();
      }
      if (Date.now() - startedAt >= streamMs) return stop();
      timer = setTimeout(() => void tick(), ctx.deps.watchIntervalMs);
    } catch (error) {
      if (over) return;
      if (error instanceof HeraldError && error.code === ErrorCode.objectNotFound) send('gone', {});
      else ctx.deps.accounts.logger.warn({ err: error }, 'console push progress stream failed');
      stop();
    }
  };
  void tick();
}
