export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends mail for one app. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
