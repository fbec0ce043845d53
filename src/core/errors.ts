/**
 * Wire error codes from SPEC-NOTES.md. The body of every error answer is
 * `{code, error}`; the HTTP status is carried beside the code.
 */
export const ErrorCode = {
  internal: 1,
  objectNotFound: 101,
  missingObjectId: 104,
  invalidFieldName: 105,
  invalidJson: 107,
  invalidType: 111,
  invalidChannelName: 112,
  missingRequiredKey: 113,
  invalidDeviceToken: 114,
  clientOperationForbidden: 119,
  invalidAcl: 123,
  invalidEmail: 125,
  invalidMobilePhone: 127,
  duplicateValue: 137,
  usernameMissing: 200,
  passwordMissing: 201,
  usernameTaken: 202,
  emailTaken: 203,
  emailMissing: 204,
  emailNotFound: 205,
  sessionMissing: 206,
  authDataTaken: 208,
  passwordMismatch: 210,
  userNotFound: 211,
  mobilePhoneMissing: 212,
  mobilePhoneNotFound: 213,
  mobilePhoneTaken: 214,
  mobilePhoneNotVerified: 215,
  emailNotVerified: 216,
  usernameBlank: 217,
  passwordBlank: 218,
  loginLocked: 219,
  unauthorized: 401,
  forbidden: 403,
  bodyTooLarge: 413,
  tooManyRequests: 429,
  unavailable: 503,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

const defaultStatus: Partial<Record<ErrorCodeValue, number>> = {
  [ErrorCode.objectNotFound]: 404,
  [ErrorCode.clientOperationForbidden]: 403,
  [ErrorCode.sessionMissing]: 403,
  [ErrorCode.unauthorized]: 401,
  [ErrorCode.forbidden]: 403,
  [ErrorCode.bodyTooLarge]: 413,
  [ErrorCode.tooManyRequests]: 429,
  [ErrorCode.unavailable]: 503,
};

/** An error with a stable wire code; everything thrown to a client is one of these. */
export class HeraldError extends Error {
  readonly code: ErrorCodeValue;
  readonly status: number;
  readonly retryable: boolean;

  constructor(code: ErrorCodeValue, message: string, options: { status?: number; retryable?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'HeraldError';
    this.code = code;
    this.status = options.status ?? defaultStatus[code] ?? 400;
    this.retryable = options.retryable ?? code === ErrorCode.unavailable;
  }

  toBody(): { code: number; error: string } {
    return { code: this.code, error: this.message };
  }
}

/** Shorthand for the most common case: a 4xx answer with a code and message. */
export function fail(code: ErrorCodeValue, message: string, status?: number): never {
  throw new HeraldError(code, message, status === undefined ? {} : { status });
}

/** Raised by stores when a unique value is already held by another object. */
export class DuplicateValueError extends Error {
  readonly field: string;
  constructor(field: string) {
    super(`duplicate value for unique field ${field}`);
    this.name = 'DuplicateValueError';
    this.field = field;
  }
}

/** Raised by an update whose `expect` op found another value: nothing was written. */
export class PreconditionFailedError extends Error {
  readonly field: string;
  constructor(field: string) {
    super(`field ${field} no longer holds the expected value`);
    this.name = 'PreconditionFailedError';
    this.field = field;
  }
}

/** Raised by adapters when their backing service cannot be reached. */
export class ServiceUnavailableError extends HeraldError {
  /** The backing service by name (`Cassandra`, `Redis`, `Kafka`). */
  readonly service: string;

  constructor(service: string, cause?: unknown) {
    super(ErrorCode.unavailable, `${service} is unavailable; retry later`, { cause });
    this.service = service;
  }
}
