import { Router, type NextFunction, type Request, type Response } from 'express';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { Metrics } from '../../core/metrics.ts';
import { errorHandler } from '../middleware/error-handler.ts';
import { requestMetrics } from '../middleware/request-metrics.ts';
import type { OutageLog } from '../outage-log.ts';
import type { BatchRequest, PlannedRequest } from './batch-body.ts';
import { CapturedResponse, type CapturedAnswer } from './captured-response.ts';

/** One entry of a batch's answer, in the hosted service's form. */
export type BatchAnswer = { success: unknown } | { error: unknown };

export interface BatchDispatcherDeps {
  /**
   * The routers a batched request may reach: the very instances that serve
   * the direct requests, so a batched request meets the same handlers and
   * rules (session and ACL checks, class permissions, unique fields, the
   * account lock, platform token checks).
   */
  routes: readonly Router[];
  metrics: Metrics;
  logger: Logger;
  outages: OutageLog;
}

/** Runs one batched request as its own request; answers its entry of the batch. */
export type BatchDispatcher = (outerReq: Request, outerRes: Response, planned: PlannedRequest) => Promise<BatchAnswer>;

/**
 * Builds the pipeline a batched request goes through after the outer
 * request's body reading and authentication: request metrics (each batched
 * request is timed under its own route template, as a direct call is), the
 * object routers, then the same error handler as direct requests, which maps
 * errors to `{code, error}` and logs faults and outages the same way.
 */
export function createBatchDispatcher(deps: BatchDispatcherDeps): BatchDispatcher {
  const pipeline = Router();
  pipeline.use(requestMetrics(deps.metrics), ...deps.routes, unserved, errorHandler(deps.logger, deps.outages));

  const run = async (outerReq: Request, outerRes: Response, request: BatchRequest, url: string): Promise<CapturedAnswer> => {
    // The outer request's caller (app, key, master, session) and -Prod header, as `authenticate` resolved them.
    const res = new CapturedResponse({ caller: outerRes.locals.caller, prodHeader: outerRes.locals.prodHeader });
    // The error handler answers every error; this is reached only if something called next past it.
    const last = (error?: unknown) => {
      if (!res.headersSent) res.status(500).json({ code: ErrorCode.internal, error: error instanceof Error ? error.message : 'Internal server error.' });
    };
    // The routers take express's types; they use of a response only what CapturedResponse implements.
    pipeline(innerRequest(outerReq, request, url), res as unknown as Response, last);
    return res.answer;
  };

  return async (outerReq, outerRes, { request, target }) => {
    if (target instanceof HeraldError) return { error: target.toBody() };
    let answer: CapturedAnswer | undefined;
    // Several URLs only for a DELETE of several ids: each in turn; the entry is the first failure, or the success.
    for (const url of target.urls) {
      answer = await run(outerReq, outerRes, request, url);
      if (answer.status >= 400) break;
    }
    if (answer === undefined) return { error: { code: ErrorCode.internal, error: 'The request names no object.' } };
    return answer.status < 400 ? { success: answer.body } : { error: answer.body };
  };
}

/**
 * A request object for the routers: the outer request (its app and query
 * parser) underneath, with this request's method, URL, body and no route yet,
 * so nothing of it is shared with the outer request or another batched one.
 */
function innerRequest(outer: Request, request: BatchRequest, url: string): Request {
  const req = Object.create(outer) as Request;
  Object.assign(req, { method: request.method, url, originalUrl: `/1.1${url}`, baseUrl: '/1.1', body: request.body, params: {}, route: undefined });
  return req;
}

/** A path of the batchable shape that no route serves with this method, e.g. POST /1.1/users/<id>. */
function unserved(req: Request, _res: Response, next: NextFunction): void {
  next(new HeraldError(ErrorCode.internal, `Herald does not serve ${req.method} ${req.originalUrl.split('?')[0]?.slice(0, 200) ?? ''}.`, { status: 404 }));
}
