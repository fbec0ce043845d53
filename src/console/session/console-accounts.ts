import type { ConsoleAccount, ConsoleRole } from '../../config/console-schema.ts';

/** What a console request may do, each allowed from one role up. */
export const consoleActions = {
  /** Every page of the apps the account sees. */
  read: 'viewer',
  /** Compose, preview, count the audience, test-send and send a push. */
  send: 'operator',
  /** Cancel a scheduled push. */
  cancel: 'operator',
  /** Lift a user's login lock. */
  unlock: 'operator',
  /** Send a user a password reset or verification mail. */
  mail: 'operator',
  /** Delete an installation. */
  deleteDevice: 'operator',
  /** An app's settings (no secret) and the console's accounts. */
  settings: 'admin',
  /** The audit log. */
  audit: 'admin',
} as const satisfies Record<string, ConsoleRole>;

export type ConsoleAction = keyof typeof consoleActions;

const rank: Record<ConsoleRole, number> = { viewer: 0, operator: 1, admin: 2 };

/** Whether `role` may do `action`. */
export function roleAllows(role: ConsoleRole, action: ConsoleAction): boolean {
  return rank[role] >= rank[consoleActions[action]];
}

/** Whether the account sees the app `appId`. */
export function seesApp(account: Pick<ConsoleAccount, 'apps'>, appId: string): boolean {
  return account.apps.includes('*') || account.apps.includes(appId);
}

/** The configured console accounts by username, read at every request so that a change of role or apps applies at once. */
export class ConsoleAccounts {
  readonly #byName: ReadonlyMap<string, ConsoleAccount>;

  constructor(accounts: readonly ConsoleAccount[]) {
    this.#byName = new Map(accounts.map((account) => [account.username, account]));
  }

  get(username: string): ConsoleAccount | undefined {
    return this.#byName.get(username);
  }

  all(): ConsoleAccount[] {
    return [...this.#byName.values()];
  }
}
