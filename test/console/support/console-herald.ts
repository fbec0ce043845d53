import { hashPassword } from '../../../src/accounts/passwords.ts';
import type { RawConfig } from '../../../src/config/schema.ts';
import { quickEngine } from '../../push/support/push-herald.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../../support/push-gateways.ts';
import { ManualClock } from '../../support/manual-clock.ts';
import { startTestHerald, testApp, type TestApp, type TestHerald, type TestHeraldOptions } from '../../support/test-herald.ts';

type RawConsole = NonNullable<RawConfig['console']>;

/** The console accounts of these tests, with their passwords. */
export const people = {
  admin: { username: 'ada', password: 'ada-console-password', role: 'admin', apps: ['*'] },
  operator: { username: 'otto', password: 'otto-console-password', role: 'operator', apps: ['main'] },
  viewer: { username: 'vera', password: 'vera-console-password', role: 'viewer', apps: ['main'] },
  /** An operator of the other app only. */
  outsider: { username: 'olga', password: 'olga-console-password', role: 'operator', apps: ['other'] },
} as const;

export type Person = (typeof people)[keyof typeof people];

let hashes: Promise<RawConsole['accounts']> | undefined;

/** The accounts block, hashed once per test file (argon2id is slow by design). */
export function consoleAccounts(): Promise<RawConsole['accounts']> {
  hashes ??= Promise.all(
    Object.values(people).map(async (person) => ({
      username: person.username,
      passwordHash: await hashPassword(person.password),
      role: person.role,
      apps: person.apps.map((app) => (app === 'main' ? mainAppId : app === 'other' ? otherAppId : app)),
    })),
  );
  return hashes;
}

// Random per test file: on the distributed run, files share Cassandra and Redis.
const suffix = Math.random().toString(36).slice(2, 8);
export const mainAppId = `main${suffix}`;
export const otherAppId = `other${suffix}`;

export interface ConsoleHerald {
  h: TestHerald;
  fakes: PushGatewayFakes;
  clock: ManualClock;
  /** The app the console's people see (the operator and viewer see only it). */
  main: TestApp;
  /** The other app (seen by the admin and the outsider). */
  other: TestApp;
  /** Base URL of the console: `<origin>/console`. */
  consoleUrl: string;
  /** Origin of the console's pages, as a browser sends it. */
  origin: string;
  close(): Promise<void>;
}

export interface ConsoleHeraldOptions {
  console?: Partial<RawConsole>;
  /** Push engine settings over the tests' quick ones (e.g. `deliveryLog`). */
  engine?: Parameters<typeof quickEngine>[0];
  coordination?: TestHeraldOptions['coordination'];
}

/** A Herald with fake gateways, two apps and the console's people configured. */
export async function startConsoleHerald(options: ConsoleHeraldOptions = {}): Promise<ConsoleHerald> {
  const clock = new ManualClock();
  const fakes = await startPushGatewayFakes({ apns: { clock }, fcm: { clock }, hms: { clock }, oppo: { clock }, vivo: { clock }, xiaomi: { clock }, honor: { clock }, meizu: { clock } });
  const main = testApp({ id: mainAppId, name: 'Main App', push: fakes.appPush });
  const other = testApp({ id: otherAppId, name: 'Other App', push: fakes.appPush });
  let h: TestHerald;
  try {
    h = await startTestHerald({
      clock,
      app: main,
      extraApps: [other],
      engine: fakes.engine(quickEngine(options.engine)),
      console: { accounts: await consoleAccounts(), ...options.console },
      ...(options.coordination === undefined ? {} : { coordination: options.coordination }),
    });
  } catch (error) {
    await fakes.close();
    throw error;
  }
  const origin = h.herald.consolePort === undefined ? h.baseUrl : `http://127.0.0.1:${h.herald.consolePort}`;
  return {
    h,
    fakes,
    clock,
    main,
    other,
    consoleUrl: `${origin}/console`,
    origin,
    close: async () => {
      await h.close();
      await fakes.close();
    },
  };
}
