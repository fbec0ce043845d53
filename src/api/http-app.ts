import cors from 'cors';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { AccountDeps } from '../accounts/account-deps.ts';
import type { AuthConfig } from '../config/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Metrics } from '../core/metrics.ts';
import type { PushDeps } from '../push/push-deps.ts';
import type { AppRegistry } from '../accounts/app-registry.ts';
import { maskLinkTokens } from './mask-link-tokens.ts';
import { authenticate } from './middleware/authenticate.ts';
import { errorHandler, notFoundHandler } from './middleware/error-handler.ts';
import type { OutageLog } from './outage-log.ts';
import { jsonBody } from './middleware/json-body.ts';
import { requestMetrics } from './middleware/request-metrics.ts';
import type { Readiness } from '../runtime/readiness.ts';
import { batchRoutes } from './routes/batch-routes.ts';
import { operationsRoutes } from './routes/health-routes.ts';
import { openApiRoutes } from './routes/openapi-routes.ts';
import { installationRoutes } from './routes/installation-routes.ts';
import { deliveryLogRoutes } from './routes/delivery-log-routes.ts';
import { pushRoutes } from './routes/push-routes.ts';
import { pageRoutes } from './routes/page-routes.ts';
import { userRoutes } from './routes/user-routes.ts';

export interface HttpAppDeps {
  accounts: AccountDeps;
  push: PushDeps;
  apps: AppRegistry;
  logger: Logger;
  /** Where refusals for a backend outage are told (shared with the gRPC API). */
  outages: OutageLog;
  bodyLimitBytes: number;
  health: Readiness;
  metrics: Metrics;
  /** Serve `/metrics`, `/healthz` and `/readyz` here; false when an internal port serves them. */
  serveOperations: boolean;
  /** Which header prefixes are read, and the signature window. */
  auth: AuthConfig;
  clock: Clock;
  /** The web console, mounted at `/console` (absent when it is off or has a port of its own). */
  console?: Express | undefined;
}

/** The express application of the api role: `/1.1/*`, the emailed pages, health and metrics. */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(
    pinoHttp({
      logger: deps.logger,
      // A 503 is a backend outage, logged once by the error handler's OutageLog rather than per request.
      customLogLevel: (_req, res, error) => (res.statusCode !== 503 && (error || res.statusCode >= 500) ? 'error' : 'debug'),
      serializers: { req: (req: { url?: string }) => ({ ...req, url: maskLinkTokens(req.url) }) },
    }),
  );
  app.use(requestMetrics(deps.metrics));
  if (deps.serveOperations) app.use(operationsRoutes(deps.health, deps.metrics));
  if (deps.console !== undefined) app.use('/console', deps.console);
  app.use('/1.1', pageRoutes(deps.accounts, deps.apps), openApiRoutes());
  // One instance of each, so a batched request reaches the very routes a direct one does.
  const objectRoutes = [userRoutes(deps.accounts), installationRoutes(deps.accounts)];
  app.use(
    '/1.1',
    cors({ maxAge: 86_400, exposedHeaders: ['Location'] }),
    ...jsonBody(deps.bodyLimitBytes),
    authenticate(deps.apps, deps.auth, deps.clock),
    batchRoutes({ routes: objectRoutes, metrics: deps.metrics, logger: deps.logger, outages: deps.outages }),
    ...objectRoutes,
    pushRoutes(deps.push),
    deliveryLogRoutes(deps.push),
  );
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger, deps.outages));
  return app;
}

/** The internal port's application: only `/metrics`, `/healthz` and `/readyz`. */
export function createOperationsApp(deps: Pick<HttpAppDeps, 'health' | 'metrics'>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(operationsRoutes(deps.health, deps.metrics));
  app.use(notFoundHandler);
  return app;
}
