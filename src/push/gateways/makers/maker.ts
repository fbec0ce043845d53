import type { ZodType } from 'zod';
import type { Clock } from '../../../core/clock.ts';
import type { MakerContent } from '../../payload/maker-content.ts';
import type { CredentialFiles } from '../credential-files.ts';
import type { DeliveryOutcome, MakerName } from '../delivery.ts';
import type { AccessTokenFetch } from './maker-access-token.ts';
import type { MakerHttp } from './maker-http.ts';

/**
 * What a phone maker's folder (`src/push/gateways/makers/<maker>/`) hands to
 * the framework, through `defineMaker` in its `<maker>-maker.ts`: which
 * installations it serves, how its config block is read, and its protocol.
 * Everything else (profiles, batching, access tokens, the delivery window,
 * retries, removing invalid tokens, metrics) is the framework's.
 * docs/push-engine.md, "Adding a maker".
 */
export interface MakerDefinition<Config, Profile> {
  readonly gateway: MakerName;
  /**
   * Installation `vendor` values this maker serves, each with the variant it
   * selects: `''` for the maker's default endpoints, another word for a
   * variant its protocol knows (Xiaomi's `mi-intl` → `global`).
   */
  readonly vendors: Readonly<Record<string, string>>;
  /** Whether the maker passes a silent (data-only) message to the app; if not, each device of a silent push counts `SilentNotSupported`. */
  readonly silent: boolean;
  /** Keys of `data.<maker>` that are request fields of the maker (written where it documents them), not data for the app. */
  readonly overrideFields: ReadonlySet<string>;
  /** Its config block (`apps[].push.<maker>`), from `src/config/makers/<maker>-schema.ts`. */
  readonly schema: ZodType<Config>;
  /**
   * Reads the app's block once at start-up: each profile by name, its
   * secrets read from their files (`files.secret`). Throws `ConfigError`
   * naming the key at `at` and the file, never a secret.
   */
  load(config: Config, files: CredentialFiles, at: string): ReadonlyMap<string, Profile>;
  /** The protocol of one profile's client; `context.http` is the client's own connection pool. */
  protocol(profile: Profile, context: ProtocolContext): MakerProtocol;
}

export interface ProtocolContext {
  http: MakerHttp;
  clock: Clock;
}

/** The maker's side of one profile's client: how it authenticates and how one batch is sent and read. */
export interface MakerProtocol {
  /** Most tokens one send request carries (HMS 1000). */
  readonly maxTokens: number;
  /** How to get an access token (cached and refreshed by the framework); absent when requests are signed with the secret itself. */
  readonly accessToken?: AccessTokenFetch;
  /**
   * Sends one batch, built from `batch.content` for `batch.tokens` (the maker
   * payload hook), and reads what the answer says of each token. Every
   * answer, a transport failure included, is a verdict; a throw counts every
   * token failed (`Other`) and is logged.
   */
  send(batch: MakerBatch): Promise<BatchVerdict>;
}

/** One request's worth of deliveries of the same push and variant. */
export interface MakerBatch {
  /** The registration tokens, each once, at most `maxTokens`. */
  readonly tokens: readonly string[];
  readonly content: MakerContent;
  /** The variant of the installations' vendor (`''` the default). */
  readonly variant: string;
  /** Whole seconds left before the push expires, at this send; null when it does not expire. */
  readonly ttlSeconds: number | null;
  /** The access token's value, when the protocol has `accessToken`. */
  readonly authorization: string | undefined;
  /**
   * Whether the maker accepted a token of this profile since the client
   * started, so the credentials work: an answer that every token is invalid
   * then speaks of the tokens, not of a misconfigured profile.
   */
  readonly proven: boolean;
  /** Logs a word the maker answered outside its documented reasons (counted as `Other`), at warn, throttled. */
  unknownWord(status: number, word: string | undefined, body: Buffer | undefined): void;
}

/** What a maker's answer says about the tokens of a batch. */
export type BatchVerdict =
  /** Tokens named in `outcomes` ended so; every other token ended as `others`. */
  | { kind: 'tokens'; others: DeliveryOutcome; outcomes?: ReadonlyMap<string, DeliveryOutcome> }
  /** The maker refused the access token: the framework gets a new one and sends the batch once more, else every token ends as `outcome`. */
  | { kind: 'auth-rejected'; outcome: DeliveryOutcome }
  /** The profile's quota for the day is spent: every token fails `DailyQuotaExceeded`, and so does every send of the profile until the quota renews. */
  | { kind: 'quota-exhausted'; word: string };

/** A verdict that every token of the batch ended as `outcome`. */
export function everyToken(outcome: DeliveryOutcome): BatchVerdict {
  return { kind: 'tokens', others: outcome };
}

/** A registered maker, its config and profile types erased for the registry. */
export interface Maker {
  readonly gateway: MakerName;
  readonly vendors: Readonly<Record<string, string>>;
  readonly silent: boolean;
  readonly overrideFields: ReadonlySet<string>;
  /** Reads the app's config block (validated again by the maker's schema); throws `ConfigError`. */
  load(config: unknown, files: CredentialFiles, at: string): MakerProfiles;
}

/** An app's profiles of one maker, read at start-up. */
export interface MakerProfiles {
  readonly names: readonly string[];
  /** The protocol of profile `name`, undefined when the app has no such profile. */
  protocol(name: string, context: ProtocolContext): MakerProtocol | undefined;
}

/** Registers a maker's definition (one line in `maker-registry.ts`). */
export function defineMaker<Config, Profile>(definition: MakerDefinition<Config, Profile>): Maker {
  const { gateway, vendors, silent, overrideFields } = definition;
  return {
    gateway,
    vendors,
    silent,
    overrideFields,
    load(config, files, at) {
      const profiles = definition.load(definition.schema.parse(config), files, at);
      return {
        names: [...profiles.keys()],
        protocol: (name, context) => {
          const profile = profiles.get(name);
          return profile === undefined ? undefined : definition.protocol(profile, context);
        },
      };
    },
  };
}
