import type { Role, RoleStatus } from './role.ts';

/**
 * The roles of one process in start order: what `/readyz` and `/healthz`
 * report, and what SIGTERM closes in reverse order.
 */
export class RunningRoles {
  readonly #roles: Role[] = [];

  /** Adds a role before starting it, so that `/readyz` shows it as starting. */
  add(role: Role): void {
    this.#roles.push(role);
  }

  get list(): readonly Role[] {
    return this.#roles;
  }

  statuses(): Record<string, RoleStatus> {
    return Object.fromEntries(this.#roles.map((role) => [role.name, role.status()]));
  }

  /** Closes every role in reverse start order, each after the one started after it has drained. */
  async closeAll(): Promise<void> {
    for (const role of [...this.#roles].reverse()) await role.close();
  }
}
