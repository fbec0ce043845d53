import { createHash } from 'node:crypto';

/**
 * The `sign` of OPPO's auth request: SHA-256 of the AppKey, the timestamp
 * (milliseconds, as sent) and the MasterSecret concatenated in that order,
 * in lower-case hex (OPPO's "鉴权" page; its server SDK's `Auth.getSign`).
 */
export function oppoSign(appKey: string, timestamp: string, masterSecret: string): string {
  return createHash('sha256').update(`${appKey}${timestamp}${masterSecret}`, 'utf8').digest('hex');
}
