import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from '../../core/metrics.ts';

/** Times every request, labelled by route template (never by raw path, which holds ids and secrets). */
export function requestMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const stop = metrics.httpRequestSeconds.startTimer();
    res.once('finish', () => {
      const template = (req.route as { path?: unknown } | undefined)?.path;
      // req.baseUrl is already reset when an error left the router; every router is mounted at /1.1 or at the root.
      const base = req.originalUrl.startsWith('/1.1/') ? '/1.1' : '';
      const route = typeof template === 'string' ? `${base}${template}` : 'unmatched';
      stop({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}
