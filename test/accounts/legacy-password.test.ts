import { describe, expect, it } from 'vitest';
import { encodeHostedHash, hostedPasswordHash, isHostedHash, verifyHostedHash } from '../../src/accounts/legacy-password.ts';
import { needsRehash, verifyPassword } from '../../src/accounts/passwords.ts';

/**
 * The hosted service's published example (a salt and "password"); the
 * expected hash was computed with openssl, independently of Herald:
 * printf '%s%s' "$salt" password | openssl dgst -sha512 -binary, then
 * openssl dgst -sha512 -binary 512 more times, then base64.
 */
const salt = 'h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2';
const expected = 'tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug==';

describe('passwords imported from the hosted service', () => {
  it('hashes as the hosted service did', () => {
    expect(hostedPasswordHash(salt, 'password')).toBe(expected);
  });

  it('verifies the right password and refuses a wrong one, through verifyPassword too', async () => {
    const stored = encodeHostedHash(salt, expected);
    expect(isHostedHash(stored)).toBe(true);
    expect(verifyHostedHash(stored, 'password')).toBe(true);
    expect(verifyHostedHash(stored, 'Password')).toBe(false);
    expect(await verifyPassword(stored, 'password')).toBe(true);
    expect(await verifyPassword(stored, 'passwor')).toBe(false);
    expect(needsRehash(stored)).toBe(true);
  });

  it('keeps any salt exactly, including the separator and non-ASCII', () => {
    for (const odd of ['a$b', 'sälz', '']) {
      const stored = encodeHostedHash(odd, hostedPasswordHash(odd, 'pw'));
      expect(verifyHostedHash(stored, 'pw'), odd).toBe(true);
      expect(verifyHostedHash(stored, 'pw2'), odd).toBe(false);
    }
  });

  it('never matches a malformed stored value', () => {
    for (const stored of ['$hosted-sha512$', '$hosted-sha512$c2FsdA', '$hosted-sha512$c2FsdA$', '$hosted-sha512$c2FsdA$bm90LWEtaGFzaA==']) {
      expect(verifyHostedHash(stored, 'password'), stored).toBe(false);
    }
  });

  it('does not ask to rehash Herald’s own hashes', () => {
    expect(needsRehash('$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(false);
    expect(needsRehash(undefined)).toBe(false);
  });
});
