import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DevKeys {
  keys: { id: string; key: string; masterKey: string };
  file: string;
  /** True when this start created the keys. */
  created: boolean;
}

/**
 * Development keys for a service started with no app configured: created once,
 * kept in the data directory so that they survive restarts.
 */
export function loadOrCreateDevKeys(dataDir: string): DevKeys {
  const file = join(dataDir, 'dev-app.json');
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as DevKeys['keys'];
    return { keys: { id: stored.id, key: stored.key, masterKey: stored.masterKey }, file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const keys = {
    id: `dev-${randomBytes(6).toString('hex')}`,
    key: randomBytes(18).toString('base64url'),
    masterKey: randomBytes(24).toString('base64url'),
  };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return { keys, file, created: true };
}
