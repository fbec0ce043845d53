import { createHash } from 'node:crypto';

/**
 * Meizu's request signature ("接口签名规范"): every parameter of the request
 * but `sign`, sorted by name (Java's `TreeMap`: UTF-16 code-unit order, which
 * is JavaScript's default sort), written `key=value` one after the other
 * with the raw values (not URL-encoded), the App Secret appended, and the MD5
 * of that text (UTF-8) in 32 lower-case hex digits.
 */
export function meizuSign(params: Readonly<Record<string, string>>, appSecret: string): string {
  const keys = Object.keys(params)
    .filter((key) => key !== 'sign')
    .sort();
  let base = '';
  for (const key of keys) base += `${key}=${params[key]}`;
  return createHash('md5').update(`${base}${appSecret}`, 'utf8').digest('hex');
}
