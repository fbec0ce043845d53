import type { HeraldConfig } from './config/schema.ts';
import type { Clock } from './core/clock.ts';
import type { Logger } from './core/logger.ts';
import { ApiRole } from './roles/api-role.ts';
import { createRuntime, type Runtime } from './runtime/create-runtime.ts';

export interface RunningHerald {
  runtime: Runtime;
  /** Port of the api role, when it runs. */
  port: number | undefined;
  /** Closes the roles in reverse start order, then the adapters; idempotent. */
  close(): Promise<void>;
}

/** Starts the roles the config asks for in this process. */
export async function startHerald(config: HeraldConfig, options: { logger: Logger; clock?: Clock }): Promise<RunningHerald> {
  const runtime = await createRuntime(config, options);
  const roles: { close(): Promise<void> }[] = [];
  let port: number | undefined;
  try {
    // `all` is every role on the embedded default; the push roles join it as they arrive.
    if (config.role === 'api' || config.role === 'all') {
      const api = new ApiRole(runtime);
      port = await api.start();
      roles.push(api);
    }
  } catch (error) {
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
  return { runtime, port, close };
}
