import { Router } from 'express';
import type { Metrics } from '../../core/metrics.ts';

export type HealthChecks = Readonly<Record<string, () => Promise<void>>>;

/**
 * What operators and orchestrators read: `/healthz` (the process answers),
 * `/readyz` (every dependency answers, each reported by name) and `/metrics`.
 */
export function operationsRoutes(checks: HealthChecks, metrics: Metrics): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.text());
  });
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const entries: (readonly [string, { status: string; error?: string }])[] = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await check();
          return [name, { status: 'ok' }] as const;
        } catch (error) {
          return [name, { status: 'unavailable', error: (error as Error).message }] as const;
        }
      }),
    );
    const ready = entries.every(([, result]) => result.status === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(entries) });
  });
  return router;
}
