import { EventEmitter, once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { withDeadline } from './with-deadline.ts';

/** Credentials a client logged in with. */
export interface SinkLogin {
  method: string;
  username: string;
  password: string;
}

/** One message the sink accepted, parsed. */
export interface ReceivedMail {
  /** Addresses of the To header. */
  to: string[];
  from: string | undefined;
  subject: string;
  text: string;
  html: string;
  headers: ParsedMail['headers'];
  envelope: { from: string | undefined; to: string[] };
  /** The login of the session that sent the message, if it logged in. */
  login: SinkLogin | undefined;
  raw: Buffer;
}

export type MailMatch = ((mail: ReceivedMail) => boolean) | { to: string };

export interface SmtpSink {
  host: '127.0.0.1';
  port: number;
  /** Every accepted message, in order of arrival. */
  messages: ReceivedMail[];
  /** Every successful login, in order. */
  logins: SinkLogin[];
  /** Client connections currently open. */
  openConnections(): number;
  /** The first message, received or still to come, that matches. */
  waitForMessage(match: MailMatch, timeoutMs?: number): Promise<ReceivedMail>;
  /** Resolves once no client connection is open. */
  waitForNoConnections(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** Decides logins; by default every user name and password is accepted. */
  acceptLogin?: (username: string, password: string) => boolean;
}

/** Addresses of a parsed address header, groups flattened. */
export function addressesOf(field: AddressObject | AddressObject[] | undefined): string[] {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects.flatMap((object) => object.value.flatMap((entry) => (entry.group ?? [entry]).map((member) => member.address ?? '')));
}

/**
 * A real SMTP server on 127.0.0.1 for tests: plain text, no TLS, login
 * optional (any credentials accepted unless `acceptLogin` says otherwise and
 * recorded). Waiting is event-driven.
 */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const events = new EventEmitter();
  const messages: ReceivedMail[] = [];
  const logins: SinkLogin[] = [];
  const sessionLogins = new Map<string, SinkLogin>();
  let open = 0;

  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 1_000,
    onConnect(_session, callback) {
      open += 1;
      callback();
    },
    onClose(session: SMTPServerSession) {
      open -= 1;
      sessionLogins.delete(session.id);
      events.emit('disconnect');
    },
    onAuth(auth, session, callback) {
      const login = { method: auth.method, username: auth.username ?? '', password: auth.password ?? '' };
      if (options.acceptLogin !== undefined && !options.acceptLogin(login.username, login.password)) {
        callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
        return;
      }
      logins.push(login);
      sessionLogins.set(session.id, login);
      callback(null, { user: login.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            const mailFrom = session.envelope.mailFrom;
            const mail: ReceivedMail = {
              to: addressesOf(parsed.to),
              from: addressesOf(parsed.from)[0],
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: parsed.html === false ? '' : parsed.html,
              headers: parsed.headers,
              envelope: { from: mailFrom === false ? undefined : mailFrom.address, to: session.envelope.rcptTo.map((rcpt) => rcpt.address) },
              login: sessionLogins.get(session.id),
              raw,
            };
            messages.push(mail);
            callback();
            events.emit('message', mail);
          },
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
      });
    },
  });

  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;

  function waitForMessage(match: MailMatch, timeoutMs = 5_000): Promise<ReceivedMail> {
    const matches = typeof match === 'function' ? match : (mail: ReceivedMail) => mail.to.includes(match.to) || mail.envelope.to.includes(match.to);
    const found = messages.find(matches);
    if (found !== undefined) return Promise.resolve(found);
    const { promise, resolve } = Promise.withResolvers<ReceivedMail>();
    const onMessage = (mail: ReceivedMail): void => {
      if (matches(mail)) resolve(mail);
    };
    events.on('message', onMessage);
    const what = typeof match === 'function' ? 'a matching message' : `a message to ${match.to}`;
    const seen = (): string => messages.map((mail) => `${mail.to.join(',')}: ${mail.subject}`).join('; ') || 'no message';
    return withDeadline(promise, what, { timeoutMs, seen }).finally(() => events.off('message', onMessage));
  }

  function waitForNoConnections(timeoutMs = 5_000): Promise<void> {
    if (open === 0) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    const onDisconnect = (): void => {
      if (open === 0) resolve();
    };
    events.on('disconnect', onDisconnect);
    return withDeadline(promise, 'every SMTP connection to close', { timeoutMs, seen: () => `${open} still open` }).finally(() =>
      events.off('disconnect', onDisconnect),
    );
  }

  let closing: Promise<void> | undefined;
  return {
    host: '127.0.0.1',
    port,
    messages,
    logins,
    openConnections: () => open,
    waitForMessage,
    waitForNoConnections,
    close: () => (closing ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}
