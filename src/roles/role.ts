import type { RoleName } from '../config/schema.ts';

/**
 * Where a role is in its life: `starting` until `start` resolves, `running`
 * while it works, `draining` from `close` until its in-flight work has
 * settled, then `closed`. `failed` is a role that cannot work any more
 * without a restart (its start threw, or its consumer stopped for good).
 */
export type RoleState = 'starting' | 'running' | 'failed' | 'draining' | 'closed';

/** What a role reports about itself in `/readyz` and `/healthz`. */
export interface RoleStatus {
  state: RoleState;
  /** Why it failed, when it did. */
  error?: string;
  /** Facts an operator wants beside the state (the partitions a sender owns, whether this scheduler leads). */
  detail?: Record<string, unknown>;
}

/**
 * A role a process runs. Roles are started in order and closed in reverse
 * order; `close` drains what is in flight and is idempotent.
 */
export interface Role {
  readonly name: RoleName;
  start(): Promise<void>;
  status(): RoleStatus;
  /** Idempotent; resolves once in-flight work has settled. */
  close(): Promise<void>;
}
