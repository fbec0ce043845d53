import type { AppConfig } from '../../../config/schema.ts';
import type { Clock } from '../../../core/clock.ts';
import type { NormalizedAuthData } from '../validate-auth-data.ts';
import { AppleIdentityTokens } from './apple-identity-token.ts';
import { checkWithValidationUrl } from './validation-url.ts';

/** Checks third-party credentials before they log anyone in or get linked. */
export interface PlatformTokenChecks {
  /** Resolves when every platform object is acceptable; throws a `HeraldError` otherwise. */
  verify(app: AppConfig, platforms: NormalizedAuthData): Promise<void>;
}

/**
 * What Herald can check without the platforms' secrets
 * (docs/third-party-login.md): `svc_apple` identity tokens against Apple's
 * keys, unless the app turned that off; any platform with a validation URL in
 * the app's settings through that URL. Other access tokens are taken on trust.
 */
export class DefaultPlatformTokenChecks implements PlatformTokenChecks {
  readonly #apple: AppleIdentityTokens;

  constructor(clock: Clock) {
    this.#apple = new AppleIdentityTokens(clock);
  }

  async verify(app: AppConfig, platforms: NormalizedAuthData): Promise<void> {
    const settings = app.settings.authData;
    for (const platform of platforms) {
      const url = settings.validationUrls[platform.platform];
      if (url !== undefined) await checkWithValidationUrl(url, platform.platform, platform.data);
      else if (platform.kind === 'vendor-sign-in' && settings.svc_apple.verify) await this.#apple.verify(settings.svc_apple, platform.data);
    }
  }
}
