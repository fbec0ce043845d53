import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

export const appleIssuer = 'https://appleid.apple.com';

export interface IdentityTokenClaims {
  sub: string;
  aud?: string;
  iss?: string;
  /** Seconds from now until expiry; negative for an expired token. */
  expiresInSeconds?: number;
  /** Sign with a key the key set does not publish. */
  foreignKey?: boolean;
}

/** A local stand-in for Apple's published sign-in keys, and a signer of identity tokens with them. */
export interface AppleKeys {
  /** The JWKS URL to configure as `authData.svc_apple.jwksUrl`. */
  url: string;
  /** How many times the key set was fetched. */
  fetches(): number;
  /** Makes the key set answer this status from now on (200 restores it). */
  answerWith(status: number): void;
  sign(claims: IdentityTokenClaims): Promise<string>;
  close(): Promise<void>;
}

export async function startAppleKeys(): Promise<AppleKeys> {
  const key = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(key.publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  let fetches = 0;
  let status = 200;
  const server: Server = createServer((req, res) => {
    fetches += 1;
    if (status !== 200) {
      res.writeHead(status).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const sign = (claims: IdentityTokenClaims): Promise<string> => {
    const signingKey: CryptoKey = claims.foreignKey ? foreign.privateKey : key.privateKey;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ email: 'someone@privaterelay.example' })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(claims.iss ?? appleIssuer)
      .setAudience(claims.aud ?? 'com.example.app')
      .setSubject(claims.sub)
      .setIssuedAt(now - 10)
      .setExpirationTime(now + (claims.expiresInSeconds ?? 600))
      .sign(signingKey);
  };
  return {
    url: `http://127.0.0.1:${port}/auth/keys`,
    fetches: () => fetches,
    answerWith: (next) => {
      status = next;
    },
    sign,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
