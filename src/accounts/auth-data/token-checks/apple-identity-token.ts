import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { AppSettings } from '../../../config/schema.ts';
import type { Clock } from '../../../core/clock.ts';
import { ErrorCode, HeraldError, ServiceUnavailableError } from '../../../core/errors.ts';

type AppleSettings = AppSettings['authData']['svc_apple'];

/** How long fetched keys are trusted before they are fetched again, and the least time between fetches. */
const keysMaxAgeMs = 6 * 60 * 60 * 1000;
const refetchCooldownMs = 30_000;
const fetchTimeoutMs = 5_000;

/**
 * Checks `authData.svc_apple.identity_token`, the JWT Apple signs at sign-in:
 * its signature against Apple's published keys (fetched from the configured
 * JWKS URL and cached; a token signed with an unknown key id fetches them
 * again, at most every 30 s), the issuer, the audience (the app's bundle ids,
 * when configured), the expiry, and that its subject is the `uid` the client
 * sent. Nothing here needs the app's Apple secrets.
 */
export class AppleIdentityTokens {
  readonly #clock: Clock;
  /** One key set per URL, shared by the apps that use it. */
  readonly #keySets = new Map<string, JWTVerifyGetKey>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  async verify(settings: AppleSettings, platformObject: Readonly<Record<string, unknown>>): Promise<void> {
    const token = platformObject.identity_token;
    const uid = platformObject.uid;
    if (typeof token !== 'string' || typeof uid !== 'string') throw refused('identity_token and uid must be strings');
    let subject: string | undefined;
    try {
      const { payload } = await jwtVerify(token, this.#keys(settings.jwksUrl), {
        issuer: settings.issuer,
        ...(settings.bundleIds.length > 0 ? { audience: settings.bundleIds } : {}),
        algorithms: ['RS256', 'ES256'],
        currentDate: new Date(this.#clock.now()),
        requiredClaims: ['exp', 'sub'],
      });
      subject = payload.sub;
    } catch (error) {
      throw toHeraldError(error);
    }
    if (subject !== uid) throw refused('its subject is not the uid given');
  }

  #keys(url: string): JWTVerifyGetKey {
    let keys = this.#keySets.get(url);
    if (keys === undefined) {
      keys = createRemoteJWKSet(new URL(url), { cacheMaxAge: keysMaxAgeMs, cooldownDuration: refetchCooldownMs, timeoutDuration: fetchTimeoutMs });
      this.#keySets.set(url, keys);
    }
    return keys;
  }
}

function refused(reason: string): HeraldError {
  return new HeraldError(ErrorCode.internal, `authData.svc_apple.identity_token is not valid: ${reason}.`);
}

function toHeraldError(error: unknown): HeraldError {
  // Apple's keys could not be fetched or read (a timeout, a status other than 200, not a key set): not the client's fault.
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC')) {
    return new ServiceUnavailableError("Apple's sign-in keys", error);
  }
  if (error instanceof errors.JWTExpired) return refused('it has expired');
  if (error instanceof errors.JWTClaimValidationFailed) return refused(`its ${error.claim} claim is wrong`);
  if (error instanceof errors.JOSEError) return refused(error.code === 'ERR_JWKS_NO_MATCHING_KEY' ? 'it is not signed by a known key' : 'its signature or form is wrong');
  // fetch itself failed (refused connection, DNS, TLS).
  if (error instanceof TypeError) return new ServiceUnavailableError("Apple's sign-in keys", error);
  return refused('it could not be read');
}
