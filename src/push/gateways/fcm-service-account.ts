import type { KeyObject } from 'node:crypto';

/** The parts of a Google service-account JSON file the FCM client uses, the key already parsed. */
export interface FcmServiceAccount {
  projectId: string;
  clientEmail: string;
  /** RSA key of `private_key`. */
  privateKey: KeyObject;
  /** `private_key_id`, sent as the assertion's `kid` when present. */
  privateKeyId?: string;
  /** OAuth2 token endpoint, `token_uri`. */
  tokenUri: string;
}

export const googleTokenUri = 'https://oauth2.googleapis.com/token';
