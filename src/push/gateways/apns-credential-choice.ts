import type { ApnsEnvironment } from './apns-client-options.ts';

/** An app's APNs credentials as far as choosing among them goes: read from files by the senders, from the config by explain. */
export interface ApnsCredentialSet<C> {
  /** Token auth, when configured (it serves both environments and every profile). */
  readonly token: unknown;
  readonly certificates: Partial<Record<ApnsEnvironment, C>>;
  /** Named certificates, chosen by an installation's `deviceProfile` or a push's `device_profile`. */
  readonly profiles: ReadonlyMap<string, Partial<Record<ApnsEnvironment, C>>>;
}

export type ApnsCredentialChoice<C> =
  | { readonly kind: 'profile'; readonly profile: string; readonly certificate: C }
  | { readonly kind: 'token' }
  | { readonly kind: 'certificate'; readonly certificate: C };

const byToken: ApnsCredentialChoice<never> = Object.freeze({ kind: 'token' });

/**
 * Which credential sends to `environment` for a device of `profile`: that
 * named certificate when the app has one for the environment; otherwise
 * token auth; otherwise the environment's certificate, but only without a
 * profile (an unknown profile without token auth is null rather than a
 * certificate for another bundle). Null: the device is not sent to
 * (`NoApnsCredentials`).
 */
export function chooseApnsCredential<C>(set: ApnsCredentialSet<C>, environment: ApnsEnvironment, profile?: string): ApnsCredentialChoice<C> | null {
  if (profile !== undefined && profile !== '') {
    const certificate = set.profiles.get(profile)?.[environment];
    if (certificate !== undefined) return { kind: 'profile', profile, certificate };
    if (set.token === undefined) return null;
  }
  if (set.token !== undefined) return byToken;
  const certificate = set.certificates[environment];
  return certificate === undefined ? null : { kind: 'certificate', certificate };
}
