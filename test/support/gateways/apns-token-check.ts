import { verify, type KeyObject } from 'node:crypto';

/** A provider key the fake APNs knows: the `.p8` public half, its id and team. */
export interface RegisteredApnsKey {
  keyId: string;
  teamId: string;
  publicKey: KeyObject;
  /** Topics the team may push to; absent: any. */
  topics?: string[];
}

/** What checking one provider token string decided, apart from its age. */
export type TokenVerdict = { ok: true; issuedAtMs: number; key: RegisteredApnsKey } | { ok: false; reason: 'InvalidProviderToken' };

const invalid: TokenVerdict = { ok: false, reason: 'InvalidProviderToken' };

/**
 * Checks APNs provider tokens as APNs does: ES256, `kid` a registered key,
 * `iss` its team, `iat` present. Each distinct token string is verified once
 * and the verdict remembered, like a real gateway; an ECDSA verification per
 * request would make the fake the bottleneck of a benchmark. The age check
 * (an hour) is the caller's, on every request.
 */
export class ApnsTokenCheck {
  readonly #keys = new Map<string, RegisteredApnsKey>();
  readonly #verdicts = new Map<string, TokenVerdict>();
  #verifications = 0;

  register(key: RegisteredApnsKey): void {
    this.#keys.set(key.keyId, key);
    this.#verdicts.clear();
  }

  /** Distinct tokens seen, i.e. signatures verified. */
  get verifications(): number {
    return this.#verifications;
  }

  /** Verdict for an `authorization` header value (`bearer <jwt>`). */
  check(authorization: string): TokenVerdict {
    let verdict = this.#verdicts.get(authorization);
    if (verdict === undefined) {
      verdict = this.#verify(authorization);
      this.#verifications++;
      if (this.#verdicts.size > 10_000) this.#verdicts.clear();
      this.#verdicts.set(authorization, verdict);
    }
    return verdict;
  }

  #verify(authorization: string): TokenVerdict {
    const match = /^bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(authorization);
    if (match === null) return invalid;
    const [, headerPart, claimsPart, signaturePart] = match as unknown as [string, string, string, string];
    const header = decodeJson(headerPart);
    const claims = decodeJson(claimsPart);
    if (header === undefined || claims === undefined || header.alg !== 'ES256' || typeof header.kid !== 'string') return invalid;
    const key = this.#keys.get(header.kid);
    if (key === undefined || claims.iss !== key.teamId || typeof claims.iat !== 'number') return invalid;
    const signed = Buffer.from(`${headerPart}.${claimsPart}`);
    const signature = Buffer.from(signaturePart, 'base64url');
    if (!verify('sha256', signed, { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, signature)) return invalid;
    return { ok: true, issuedAtMs: claims.iat * 1000, key };
  }
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
