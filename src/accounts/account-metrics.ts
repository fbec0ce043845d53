/** Which credential a check was about. */
export type CredentialKind = 'password' | 'sms-code';

/** Why a request for an SMS code was refused. */
export type SmsRefusal = 'number-minute' | 'number-day' | 'app-hour' | 'app-day';

/** What the account rules count; the process's metrics module implements it with prom-client. */
export interface AccountMetrics {
  /** A wrong password or SMS code. */
  credentialRejected(appId: string, kind: CredentialKind): void;
  /** An account that just got locked. */
  accountLocked(appId: string): void;
  smsRefused(appId: string, reason: SmsRefusal): void;
}
