import type { HeraldConfig } from './config/schema.ts';
import type { Clock } from './core/clock.ts';
import type { Logger } from './core/logger.ts';
import { ApiRole } from './roles/api-role.ts';
import { createRuntime, type Runtime } from './runtime/create-runtime.ts';
import { OperationsServer } from './runtime/operations-server.ts';

export interface RunningHerald {
  runtime: Runtime;
  /** Port of the api role, when it runs. */
  port: number | undefined;
  /** The internal port (metrics, health), when configured. */
  internalPort: number | undefined;
  /** Closes the roles in reverse start order, then the adapters; idempotent. */
  close(): Promise<void>;
}

/** Starts the roles the config asks for in this process. */
export async function startHerald(config: HeraldConfig, options: { logger: Logger; clock?: Clock }): Promise<RunningHerald> {
  const runtime = await createRuntime(config, options);
  const roles: { close(): Promise<void> }[] = [];
  let port: number | undefined;
  let internalPort: number | undefined;
  try {
    if (config.internalPort !== undefined) {
      const operations = new OperationsServer({ health: runtime.health, metrics: runtime.metrics, logger: options.logger });
      internalPort = await operations.start(config.internalPort, config.internalHost ?? config.host);
      roles.push(operations);
    }
    // `all` is every role on the embedded default; the push roles join it as they arrive.
    if (config.role === 'api' || config.role === 'all') {
      const api = new ApiRole(runtime);
      port = await api.start();
      roles.push(api);
    }
  } catch (error) {
    for (const role of [...roles].reverse()) await role.close();
    await runtime.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      for (const role of [...roles].reverse()) await role.close();
      await runtime.close();
    })();
    return closing;
  };
  return { runtime, port, internalPort, close };
}
