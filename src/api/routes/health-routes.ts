import { Router } from 'express';
import type { Metrics } from '../../core/metrics.ts';
import type { Readiness } from '../../runtime/readiness.ts';

/**
 * What operators and orchestrators read: `/healthz` (the process answers and
 * none of its roles failed for good: restart it otherwise), `/readyz` (the
 * backends this process's roles need answer and every role runs; each backend
 * and role reported by name) and `/metrics`.
 */
export function operationsRoutes(readiness: Readiness, metrics: Metrics): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.text());
  });
  router.get('/healthz', (_req, res) => {
    const { alive, roles } = readiness.liveness();
    res.status(alive ? 200 : 503).json({ status: alive ? 'ok' : 'failed', roles });
  });
  router.get('/readyz', async (_req, res) => {
    const { ready, checks, roles } = await readiness.report();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks, roles });
  });
  return router;
}
