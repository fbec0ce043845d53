import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A user of a secured service and its password. */
export interface ServiceUser {
  readonly username: string;
  readonly password: string;
}

/**
 * The users the secured listeners know, one per service, each with a random
 * password made on first use and kept in `credentials.json` (mode 0600) under
 * the secured folder, so that a restarted service and the tests agree.
 */
export interface SecuredCredentials {
  /** A login role of the secured Cassandra (PasswordAuthenticator), allowed to create keyspaces. */
  readonly cassandra: ServiceUser;
  /** A SASL user of Kafka's SASL_SSL listener: PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512. */
  readonly kafka: ServiceUser;
  /** An ACL user of Redis. */
  readonly redis: ServiceUser;
}

export const securedUsername = 'herald';

/** The credentials file under the secured folder `dir`. */
export function credentialsFile(dir: string): string {
  return path.join(dir, 'credentials.json');
}

/** The credentials kept under `dir`, made (and written) when there are none yet. */
export async function ensureSecuredCredentials(dir: string): Promise<SecuredCredentials> {
  const file = credentialsFile(dir);
  const existing = await readFile(file, 'utf8').then(parseCredentials, () => undefined);
  if (existing !== undefined) return existing;
  const user = (): ServiceUser => ({ username: securedUsername, password: randomBytes(18).toString('base64url') });
  const credentials: SecuredCredentials = { cassandra: user(), kafka: user(), redis: user() };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    // Exclusive: `status` (which takes no lock) and `up` may both get here first; the second reads the first's.
    await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const written = parseCredentials(await readFile(file, 'utf8'));
    if (written === undefined) throw new Error(`${file} holds no credentials; delete it to have new ones made`, { cause: error });
    return written;
  }
  return credentials;
}

/** The credentials in a file's text; undefined when it does not hold all three users. */
export function parseCredentials(text: string): SecuredCredentials | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<Record<keyof SecuredCredentials, Partial<ServiceUser>>>;
    const users = (['cassandra', 'kafka', 'redis'] as const).map((name) => parsed[name]);
    if (!users.every((user) => typeof user?.username === 'string' && typeof user.password === 'string' && user.password.length > 0)) return undefined;
    return parsed as SecuredCredentials;
  } catch {
    return undefined;
  }
}
