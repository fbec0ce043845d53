/** Names of the fields the service keeps on `_User` objects. */
export const UserField = {
  hashedPassword: '_hashedPassword',
  sessionToken: 'sessionToken',
  username: 'username',
  email: 'email',
  emailVerified: 'emailVerified',
  mobilePhoneNumber: 'mobilePhoneNumber',
  mobilePhoneVerified: 'mobilePhoneVerified',
  authData: 'authData',
  acl: 'ACL',
  /** Changes whenever the email or password does; emailed links carry it and die when it changes. */
  linkGeneration: '_linkGeneration',
  /**
   * True while the email was verified by a verification link only: a link
   * lands nobody in the account, so its owner has not entered through it and
   * the first reset link still takes the account over (ownership-proof.ts).
   */
  emailVerifiedByLink: '_emailVerifiedByLink',
} as const;

export const userClass = '_User';

/** `_<platform>_unionid`, the only underscore fields a client ever sees. */
export const unionIdFieldPattern = /^_([A-Za-z0-9]+(?:_[A-Za-z0-9]+)*)_unionid$/;

/** Fields no query or sort may use, whoever asks: secrets and their digests. */
export const unqueryableUserFields: ReadonlySet<string> = new Set([UserField.hashedPassword, 'password', UserField.sessionToken]);
