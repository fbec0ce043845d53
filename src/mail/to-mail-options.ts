import type { SendMailOptions } from 'nodemailer';
import type { MailMessage } from '../core/ports/mailer.ts';

/** The nodemailer form of an account email; both mail adapters build messages the same way. */
export function toMailOptions(from: string, message: MailMessage): SendMailOptions {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    // RFC 3834: tells auto-responders not to answer account mail.
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
