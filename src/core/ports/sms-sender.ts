export interface SmsMessage {
  to: string;
  /** The verification code alone, for providers that template their own text. */
  code: string;
  text: string;
}

/** Sends SMS verification codes for one app. */
export interface SmsSender {
  send(message: SmsMessage): Promise<void>;
}
