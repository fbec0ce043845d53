import { join } from 'node:path';
import type { AccountDeps, AppRuntime } from '../accounts/account-deps.ts';
import { DefaultPlatformTokenChecks } from '../accounts/auth-data/token-checks/platform-token-checks.ts';
import { userClassDescriptor } from '../accounts/user-class.ts';
import { AppRegistry } from '../accounts/app-registry.ts';
import { pushTopics, type PushTopics } from '../push/push-topics.ts';
import type { PushDeps } from '../push/push-deps.ts';
import { rolesOf, type HeraldConfig } from '../config/schema.ts';
import { BackgroundTasks } from '../core/background-tasks.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { HeraldMetrics } from './herald-metrics.ts';
import type { Bus } from '../core/ports/bus.ts';
import type { Coordination } from '../core/ports/coordination.ts';
import type { Store } from '../core/ports/object-store.ts';
import { createMailer } from '../mail/create-mailer.ts';
import { createSmsSender } from '../sms/create-sms-sender.ts';
import { openBus } from './open-bus.ts';
import { openCoordination } from './open-coordination.ts';
import { openStore } from './open-store.ts';
import { openWebhooks, type RuntimeWebhooks } from './open-webhooks.ts';
import { RunningRoles } from '../roles/running-roles.ts';
import type { DeploymentFacts } from './deployment-checks.ts';
import { Readiness } from './readiness.ts';

/** The adapters and shared services every role of one process uses. */
export interface Runtime {
  config: HeraldConfig;
  logger: Logger;
  clock: Clock;
  store: Store;
  coord: Coordination;
  /** Push requests and tasks travel on it. */
  bus: Bus;
  topics: PushTopics;
  apps: AppRegistry;
  accounts: AccountDeps;
  /** What the API's push endpoints need. */
  push: PushDeps;
  metrics: HeraldMetrics;
  /** The apps' webhooks in this process, and who tells them a push ended (docs/webhooks.md). */
  webhooks: RuntimeWebhooks;
  /** What `/readyz` answers: every backend this process uses, bounded in time (those its roles need decide), and every role's state. */
  health: Readiness;
  /** The roles this process runs, added as they start. */
  roles: RunningRoles;
  /** Waits for background work, then closes adapters; safe to call twice. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger: Logger;
  clock?: Clock;
  /** Development keys make the outboxes log links and codes; a configured app's never do. */
  facts?: DeploymentFacts;
}

/**
 * Opens the configured backends (by default the embedded ones: SQLite in the
 * data directory, in-memory coordination and the in-process bus; or
 * Cassandra, Redis and Kafka), each of which must answer before this resolves,
 * and Herald's topics created. Mail and SMS go to outboxes unless configured.
 */
export async function createRuntime(config: HeraldConfig, options: RuntimeOptions): Promise<Runtime> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const store = await openStore(config.store, {
    dataDir: config.dataDir,
    classes: { _User: userClassDescriptor },
    clock,
    logger,
    installationShards: config.push.installationShards,
    pushRetentionMs: config.push.retentionDays * 24 * 60 * 60 * 1000,
  });
  let coord: Coordination | undefined;
  let bus: Bus;
  try {
    coord = await openCoordination(config.coordination, { clock, logger });
    bus = await openBus(config.bus, logger);
  } catch (error) {
    await coord?.close();
    await store.close();
    throw error;
  }
  const outboxDir = join(config.dataDir, 'outbox');
  const appRuntimes: AppRuntime[] = config.apps.map((app) => ({
    config: app,
    mailer: createMailer(app, { outboxDir, logger, development: options.facts?.developmentKeys === true }),
    sms: createSmsSender(app, { outboxDir, logger, development: options.facts?.developmentKeys === true }),
  }));
  const background = new BackgroundTasks(logger);
  const metrics = new HeraldMetrics();
  let webhooks: RuntimeWebhooks;
  try {
    webhooks = openWebhooks(config, { pushes: store.pushes, clock, logger, metrics: metrics.webhooks });
  } catch (error) {
    await Promise.allSettled(appRuntimes.map((app) => app.mailer.close()));
    await bus.close();
    await coord.close();
    await store.close();
    throw error;
  }
  const accounts: AccountDeps = { store, coord, clock, logger, publicUrl: config.publicUrl, background, metrics: metrics.accounts, platformTokens: new DefaultPlatformTokenChecks(clock) };

  const apps = new AppRegistry(appRuntimes);
  const topics = pushTopics(config.bus.topicPrefix);
  const push: PushDeps = { store, coord, bus, topics, clock, logger, settings: config.push, metrics: metrics.pushApi };

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await background.drain();
      await Promise.allSettled(appRuntimes.map((app) => app.mailer.close()));
      // After the roles, before the store: the last push.done checks read it.
      await webhooks.close();
      await bus.close();
      await coord.close();
      await store.close();
    })();
    return closing;
  };
  // The bus carries push work: the consumer roles need it, an API node only to accept pushes (those answer 503 without it).
  const busRequired = rolesOf(config.role).some((role) => role !== 'api');
  const roles = new RunningRoles();
  const health = new Readiness(
    [
      { name: 'store', check: () => store.ping(), required: true },
      { name: 'coordination', check: () => coord.ping(), required: true },
      { name: 'bus', check: () => bus.ping(), required: busRequired },
    ],
    { clock, roles: () => roles.statuses() },
  );
  // The same bounded, cached checks as /readyz, so a scrape never waits on a backend longer than a probe does.
  metrics.watchDependencies(async () =>
    Object.entries((await health.report()).checks).map(([dependency, status]) => ({ dependency, required: status.optional !== true, up: status.status === 'ok' })),
  );
  return { config, logger, clock, store, coord, bus, topics, apps, accounts, push, metrics, webhooks, health, roles, close };
}
