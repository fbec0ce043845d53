import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withDeadline } from './with-deadline.ts';

export interface CapturedSms {
  to: string;
  code: string;
  text: string;
  authorization: string | undefined;
}

/** A local HTTP endpoint standing in for an SMS provider: records every message and lets tests wait for one. */
export async function startSmsWebhook(): Promise<{
  url: string;
  messages: CapturedSms[];
  /** The next message to `to`; fails after `timeoutMs` (default 10 s) naming the numbers that did get one. */
  next(to: string, timeoutMs?: number): Promise<CapturedSms>;
  /** The next request is refused with this status instead of being recorded. */
  failNext(status: number): void;
  close(): Promise<void>;
}> {
  const messages: CapturedSms[] = [];
  let failures: number[] = [];
  const waiters: { to: string; resolve: (sms: CapturedSms) => void }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const failure = failures.shift();
      if (failure !== undefined) {
        res.writeHead(failure).end('provider error');
        return;
      }
      const parsed = JSON.parse(body) as Omit<CapturedSms, 'authorization'>;
      const sms = { ...parsed, authorization: req.headers.authorization };
      messages.push(sms);
      for (const waiter of waiters.filter((w) => w.to === sms.to)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(sms);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`;
  return {
    url,
    messages,
    next: (to, timeoutMs) => {
      const { promise, resolve } = Promise.withResolvers<CapturedSms>();
      const waiter = { to, resolve };
      waiters.push(waiter);
      const seen = (): string => messages.map((sms) => sms.to).join(', ') || 'no message';
      return withDeadline(promise, `an SMS to ${to}`, { timeoutMs, seen }).finally(() => {
        if (waiters.includes(waiter)) waiters.splice(waiters.indexOf(waiter), 1);
      });
    },
    failNext: (status) => {
      failures = [...failures, status];
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export type SmsWebhook = Awaited<ReturnType<typeof startSmsWebhook>>;
