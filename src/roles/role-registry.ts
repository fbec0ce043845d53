import type { RoleName } from '../config/schema.ts';
import type { Runtime } from '../runtime/create-runtime.ts';
import { ApiRole } from './api-role.ts';
import { FanOutRole } from './fanout-role.ts';
import type { Role } from './role.ts';
import { SchedulerRole } from './scheduler-role.ts';
import { SenderRole } from './sender-role.ts';

/** How each role is made from the process's runtime: the one place a new role is added. */
export const roleRegistry: Readonly<Record<RoleName, (runtime: Runtime) => Role>> = {
  api: (runtime) => new ApiRole(runtime),
  fanout: (runtime) => new FanOutRole(runtime),
  sender: (runtime) => new SenderRole(runtime),
  scheduler: (runtime) => new SchedulerRole(runtime),
};
