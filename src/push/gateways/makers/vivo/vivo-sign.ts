import { createHash } from 'node:crypto';

/**
 * The `sign` of vivo's auth request: MD5 of the App ID, the AppKey, the
 * timestamp (milliseconds, as sent) and the AppSecret, each trimmed and
 * concatenated in that order, in lower-case hex (vivo's server API,
 * "推送鉴权接口"; its server SDK's `SignUtils.getSign`).
 */
export function vivoSign(appId: string, appKey: string, timestamp: string, appSecret: string): string {
  return createHash('md5').update(`${appId.trim()}${appKey.trim()}${timestamp.trim()}${appSecret.trim()}`, 'utf8').digest('hex');
}
