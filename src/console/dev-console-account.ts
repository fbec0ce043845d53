import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashPassword } from '../accounts/passwords.ts';
import type { ConsoleAccount } from '../config/console-schema.ts';

export interface DevConsoleAccount {
  account: ConsoleAccount;
  /** The password, printed at start so that the developer can sign in. */
  password: string;
  file: string;
  /** True when this start created it. */
  created: boolean;
}

/** The development console account's username. */
export const devConsoleUsername = 'dev';

/**
 * The console account of a Herald started with development keys: an admin
 * of every app, created once and kept in the data directory beside the
 * development keys (`dev-console.json`, readable by its owner only), so it
 * survives restarts. Never made for a configured deployment: `main.ts` asks
 * for it only when no app was configured and the config names no console
 * account.
 */
export async function loadOrCreateDevConsoleAccount(dataDir: string): Promise<DevConsoleAccount> {
  const file = join(dataDir, 'dev-console.json');
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { password: string; passwordHash: string };
    return { account: devAccount(stored.passwordHash), password: stored.password, file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const password = randomBytes(15).toString('base64url');
  const passwordHash = await hashPassword(password);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ username: devConsoleUsername, password, passwordHash }, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return { account: devAccount(passwordHash), password, file, created: true };
}

function devAccount(passwordHash: string): ConsoleAccount {
  return { username: devConsoleUsername, passwordHash, role: 'admin', apps: ['*'] };
}
