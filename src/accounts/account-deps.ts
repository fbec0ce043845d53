import type { AppConfig } from '../config/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Coordination } from '../core/ports/coordination.ts';
import type { Mailer } from '../core/ports/mailer.ts';
import type { Store } from '../core/ports/object-store.ts';
import type { SmsSender } from '../core/ports/sms-sender.ts';
import type { AccountMetrics } from './account-metrics.ts';
import type { PlatformTokenChecks } from './auth-data/token-checks/platform-token-checks.ts';

/** What the account rules need from the rest of the service. */
export interface AccountDeps {
  store: Store;
  coord: Coordination;
  clock: Clock;
  logger: Logger;
  /** Base URL of links in emails, without a trailing slash. */
  publicUrl: string;
  /** Tracks fire-and-forget work (mail, SMS) so that shutdown can wait for it. */
  background: BackgroundWork;
  metrics: AccountMetrics;
  /** Checks third-party tokens where that is possible (Apple identity tokens, validation URLs). */
  platformTokens: PlatformTokenChecks;
}

/** One configured app and its outbound channels. */
export interface AppRuntime {
  config: AppConfig;
  mailer: Mailer;
  sms: SmsSender;
}

/** Who is calling: the app, whether with the master key, and the session token if any. */
export interface Caller {
  app: AppRuntime;
  master: boolean;
  sessionToken: string | null;
}

/** Work that runs after a response, awaited on shutdown. */
export interface BackgroundWork {
  run(label: string, task: () => Promise<void>): void;
}

/** The answer of an account operation, mapped onto HTTP by the routes. */
export interface AccountResult {
  status: number;
  body: Record<string, unknown>;
  location?: string;
}
