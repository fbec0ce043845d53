import type { HeaderPrefix } from '../config/schema.ts';
import type { CallerCredentials } from './resolve-caller.ts';

/** What a REST request says about its caller, and its `-Prod` header. */
export interface RequestCredentials extends CallerCredentials {
  prod: string | undefined;
}

/**
 * Reads `<prefix>-Id`, `-Key`, `-Sign`, `-Session` and `-Prod` from the
 * accepted prefixes, each from the first prefix (in the configured order)
 * that has it.
 */
export function readCredentials(get: (name: string) => string | undefined, prefixes: readonly HeaderPrefix[]): RequestCredentials {
  const read = (name: string): string | undefined => {
    for (const prefix of prefixes) {
      const value = get(`${prefix}-${name}`);
      if (value !== undefined && value !== '') return value;
    }
    return undefined;
  };
  return { appId: read('Id'), key: read('Key'), sign: read('Sign'), session: read('Session'), prod: read('Prod') };
}
