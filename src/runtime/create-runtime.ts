import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AccountDeps, AppRuntime } from '../accounts/account-deps.ts';
import { userClassDescriptor } from '../accounts/user-class.ts';
import { AppRegistry } from '../api/app-registry.ts';
import type { HeraldConfig } from '../config/schema.ts';
import { BackgroundTasks } from '../core/background-tasks.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { Metrics } from '../core/metrics.ts';
import type { Coordination } from '../core/ports/coordination.ts';
import type { Store } from '../core/ports/object-store.ts';
import { MemoryCoordination } from '../coord/memory/memory-coordination.ts';
import { createMailer } from '../mail/create-mailer.ts';
import { createSmsSender } from '../sms/create-sms-sender.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';

/** The adapters and shared services every role of one process uses. */
export interface Runtime {
  config: HeraldConfig;
  logger: Logger;
  store: Store;
  coord: Coordination;
  apps: AppRegistry;
  accounts: AccountDeps;
  metrics: Metrics;
  /** Waits for background work, then closes adapters; safe to call twice. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger: Logger;
  clock?: Clock;
}

/** Builds the embedded default: SQLite in the data directory, in-memory coordination, mail and SMS outboxes unless configured. */
export function createRuntime(config: HeraldConfig, options: RuntimeOptions): Runtime {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  mkdirSync(config.dataDir, { recursive: true });
  const store = new SqliteStore({ file: join(config.dataDir, 'herald.sqlite'), classes: { _User: userClassDescriptor }, clock });
  const coord = new MemoryCoordination({ clock });
  const outboxDir = join(config.dataDir, 'outbox');
  const appRuntimes: AppRuntime[] = config.apps.map((app) => ({
    config: app,
    mailer: createMailer(app, { outboxDir, logger: logger.child({ app: app.id }) }),
    sms: createSmsSender(app, { outboxDir, logger: logger.child({ app: app.id }) }),
  }));
  const background = new BackgroundTasks(logger);
  const accounts: AccountDeps = { store, coord, clock, logger, publicUrl: config.publicUrl, background };

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await background.drain();
      await Promise.allSettled(appRuntimes.map((app) => app.mailer.close()));
      await coord.close();
      await store.close();
    })();
    return closing;
  };
  return { config, logger, store, coord, apps: new AppRegistry(appRuntimes), accounts, metrics: new Metrics(), close };
}
