import { rolesOf, type HeraldConfig } from './config/schema.ts';
import type { Clock } from './core/clock.ts';
import type { Logger } from './core/logger.ts';
import { ApiRole } from './roles/api-role.ts';
import { FanOutRole } from './roles/fanout-role.ts';
import { SchedulerRole } from './roles/scheduler-role.ts';
import { SenderRole } from './roles/sender-role.ts';
import { createRuntime, type Runtime } from './runtime/create-runtime.ts';
import { OperationsServer } from './runtime/operations-server.ts';

export interface RunningHerald {
  runtime: Runtime;
  /** Port of the api role, when it runs. */
  port: number | undefined;
  /** The roles running, in start order. */
  roles: readonly { readonly name?: string; close(): Promise<void> }[];
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
    // Consumers first, so that what the API accepts is taken at once; the scheduler last.
    for (const name of rolesOf(config.role)) {
      if (name === 'api') {
        const api = new ApiRole(runtime);
        port = await api.start();
        roles.push(api);
        continue;
      }
      const role = name === 'sender' ? new SenderRole(runtime) : name === 'fanout' ? new FanOutRole(runtime) : new SchedulerRole(runtime);
      await role.start();
      roles.push(role);
    }
    options.logger.info({ roles: rolesOf(config.role) }, 'roles started');
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
  return { runtime, port, internalPort, roles, close };
}
