import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../../src/accounts/emails/format-duration.ts';
import { passwordResetEmail } from '../../../src/accounts/emails/password-reset-email.ts';
import { verificationEmail } from '../../../src/accounts/emails/verification-email.ts';

const evil = `<b onmouseover="x">"Evil" & 'Co'</b>`;
const link = 'https://herald.example.test/1.1/verifyEmail/tok?a=1&b=2';

describe('verificationEmail', () => {
  it('names the app and the address and carries the link in text and html', () => {
    const mail = verificationEmail({ appName: 'Demo', email: 'ada@example.test', link });

    expect(mail.subject).toBe('Verify your email address for Demo');
    expect(mail.text).toMatch(/^Hello,\n/);
    expect(mail.text).toContain('ada@example.test');
    expect(mail.text).toContain(`\n${link}\n`);
    expect(mail.text).toContain('expires in 7 days');
    expect(mail.html).toContain('href="https://herald.example.test/1.1/verifyEmail/tok?a=1&amp;b=2"');
    expect(mail.html).toContain('<strong>ada@example.test</strong>');
  });

  it('escapes every interpolated value in the html', () => {
    const mail = verificationEmail({ appName: evil, email: evil, link });

    expect(mail.html).not.toContain('<b ');
    expect(mail.html).toContain('&lt;b onmouseover=&quot;x&quot;&gt;&quot;Evil&quot; &amp; &#39;Co&#39;&lt;/b&gt;');
    expect(mail.text).toContain(evil);
  });

  it('keeps the subject on one line', () => {
    expect(verificationEmail({ appName: 'Demo\r\nBcc: x@example.test', email: 'a@b.c', link }).subject).toBe(
      'Verify your email address for Demo Bcc: x@example.test',
    );
  });

  it('refuses a link that is not http(s)', () => {
    expect(() => verificationEmail({ appName: 'Demo', email: 'a@b.c', link: 'javascript:alert(1)' })).toThrow(new TypeError('link must be an absolute http(s) URL'));
  });
});

describe('passwordResetEmail', () => {
  it('states how long the link works', () => {
    const mail = passwordResetEmail({ appName: 'Demo', link, ttlMinutes: 60 });

    expect(mail.subject).toBe('Reset your Demo password');
    expect(mail.text).toContain(`\n${link}\n`);
    expect(mail.text).toContain('expires in 1 hour');
    expect(mail.html).toContain('expires in 1 hour');
  });

  it('escapes every interpolated value in the html', () => {
    const mail = passwordResetEmail({ appName: evil, link, ttlMinutes: 30 });

    expect(mail.html).not.toContain('<b ');
    expect(mail.html).toContain('&lt;b onmouseover=');
  });
});

describe('formatDuration', () => {
  it.each([
    [1, '1 minute'],
    [45, '45 minutes'],
    [60, '1 hour'],
    [90, '90 minutes'],
    [180, '3 hours'],
    [1440, '1 day'],
    [10080, '7 days'],
  ])('writes %i minutes as "%s"', (minutes, words) => {
    expect(formatDuration(minutes)).toBe(words);
  });
});
