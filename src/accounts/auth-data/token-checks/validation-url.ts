import { ErrorCode, HeraldError, ServiceUnavailableError } from '../../../core/errors.ts';

const timeoutMs = 5_000;

/**
 * Asks an app's own validation service whether a platform's access token is
 * good: POSTs `{platform, authData}` (the platform object as sent) as JSON;
 * 2xx accepts it, 4xx refuses it, anything else (or no answer within 5 s) is
 * an outage (503) rather than a verdict.
 */
export async function checkWithValidationUrl(url: string, platform: string, platformObject: Readonly<Record<string, unknown>>): Promise<void> {
  let status: number;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ platform, authData: platformObject }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    throw new ServiceUnavailableError(`The ${platform} validation service`, error);
  }
  if (status >= 200 && status < 300) return;
  if (status >= 400 && status < 500) throw new HeraldError(ErrorCode.internal, `authData.${platform} was refused by its validation service.`);
  throw new ServiceUnavailableError(`The ${platform} validation service`, new Error(`answered ${status}`));
}
