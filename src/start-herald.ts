import { rolesOf, type HeraldConfig } from './config/schema.ts';
import type { Clock } from './core/clock.ts';
import type { Logger } from './core/logger.ts';
import { ApiRole } from './roles/api-role.ts';
import type { Role } from './roles/role.ts';
import { roleRegistry } from './roles/role-registry.ts';
import { createRuntime, type Runtime } from './runtime/create-runtime.ts';
import { checkDeployment, type DeploymentFacts } from './runtime/deployment-checks.ts';
import { OperationsServer } from './runtime/operations-server.ts';

export interface RunningHerald {
  runtime: Runtime;
  /** Port of the api role, when it runs. */
  port: number | undefined;
  /** Port of the console when it has a port of its own (`console.port`) and the api role runs. */
  consolePort: number | undefined;
  /** Port of the api role's gRPC API, when it runs and gRPC is not off. */
  grpcPort: number | undefined;
  /** The roles running, in start order. */
  roles: readonly Role[];
  /**
   * The port serving `/metrics`, `/healthz` and `/readyz` apart from the API:
   * the internal port when configured, else the main port of a process that
   * runs no api role (every process serves its metrics).
   */
  internalPort: number | undefined;
  /** Closes the roles in reverse start order, then the adapters; idempotent. */
  close(): Promise<void>;
}

export interface StartOptions {
  logger: Logger;
  clock?: Clock;
  /** Default: the apps were configured. */
  facts?: DeploymentFacts;
}

/**
 * Starts the roles the config asks for in this process, after refusing a
 * configuration that cannot work with other nodes (see deployment-checks).
 */
export async function startHerald(config: HeraldConfig, options: StartOptions): Promise<RunningHerald> {
  const names = rolesOf(config.role);
  for (const warning of checkDeployment(config, options.facts)) options.logger.warn(warning);
  const runtime = await createRuntime(config, options);
  const { roles } = runtime;
  let operations: OperationsServer | undefined;
  let internalPort: number | undefined;
  try {
    const operationsPort = config.internalPort ?? (names.includes('api') ? undefined : config.port);
    if (operationsPort !== undefined) {
      operations = new OperationsServer({ health: runtime.health, metrics: runtime.metrics, logger: options.logger });
      internalPort = await operations.start(operationsPort, config.internalHost ?? config.host);
    }
    // Consumers first, so that what the API accepts is taken at once; the scheduler last.
    for (const name of names) {
      const role = roleRegistry[name](runtime);
      roles.add(role);
      await role.start();
    }
    options.logger.info({ roles: names }, 'roles started');
  } catch (error) {
    await roles.closeAll();
    await operations?.close();
    await runtime.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await roles.closeAll();
      await operations?.close();
      await runtime.close();
    })();
    return closing;
  };
  const api = roles.list.find((role) => role instanceof ApiRole);
  return { runtime, port: api?.port, consolePort: api?.consolePort, grpcPort: api?.grpcPort, internalPort, roles: roles.list, close };
}
