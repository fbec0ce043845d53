import { describe, expect, it } from 'vitest';
import { deliveryReasons, loggable, maxLoggedWordLength, noAnswerOutcome, reasonOf, reasonsBySource } from '../../../src/push/gateways/delivery-reasons.ts';

describe('the documented reasons', () => {
  it('list each word once, Other last', () => {
    expect(new Set(deliveryReasons).size).toBe(deliveryReasons.length);
    expect(deliveryReasons.at(-1)).toBe('Other');
    for (const words of Object.values(reasonsBySource)) for (const word of words) expect(deliveryReasons).toContain(word);
  });

  it('are a bounded set of short words a metric label and a record key can carry', () => {
    // Six phone makers bring up to a few dozen words each (their codes, as `Hms80300007`).
    expect(deliveryReasons.length).toBeLessThan(400);
    for (const reason of deliveryReasons) expect(reason).toMatch(/^[A-Za-z][A-Za-z0-9_]{1,39}$/);
  });
});

describe('reasonOf', () => {
  it("answers a word its source documents as itself", () => {
    expect(reasonOf('apns', 'BadDeviceToken')).toBe('BadDeviceToken');
    expect(reasonOf('fcm', 'UNREGISTERED')).toBe('UNREGISTERED');
    expect(reasonOf('transport', 'Timeout')).toBe('Timeout');
    expect(reasonOf('engine', 'AccessTokenUnavailable')).toBe('AccessTokenUnavailable');
    expect(reasonOf('hms', 'Hms80300007')).toBe('Hms80300007');
  });

  it("answers Other for a word its source does not document, even one another source does", () => {
    expect(reasonOf('apns', 'UNREGISTERED')).toBe('Other');
    expect(reasonOf('fcm', 'BadDeviceToken')).toBe('Other');
    expect(reasonOf('transport', 'Unregistered')).toBe('Other');
    expect(reasonOf('hms', 'Hms99999999')).toBe('Other');
    expect(reasonOf('apns', '')).toBe('Other');
    expect(reasonOf('apns', '__proto__')).toBe('Other');
    expect(reasonOf('apns', 'Other')).toBe('Other');
  });
});

describe('noAnswerOutcome', () => {
  it('keeps the word and the retry verdict of a documented transport failure', () => {
    expect(noAnswerOutcome({ reason: 'ConnectionLost', retryable: true })).toEqual({ kind: 'retry', reason: 'ConnectionLost' });
    expect(noAnswerOutcome({ reason: 'ServerCertificateRejected', retryable: false })).toEqual({ kind: 'failed', reason: 'ServerCertificateRejected' });
  });

  it('reads a failure the transports do not document as Other, with its verdict', () => {
    expect(noAnswerOutcome({ reason: 'FrameFlood', retryable: true })).toEqual({ kind: 'retry', reason: 'Other' });
    expect(noAnswerOutcome({ reason: 'Weird', retryable: false })).toEqual({ kind: 'failed', reason: 'Other' });
  });
});

describe('loggable', () => {
  it('keeps a word up to the limit and cuts a longer one there', () => {
    const limit = 'x'.repeat(maxLoggedWordLength);
    expect(loggable('short')).toBe('short');
    expect(loggable(limit)).toBe(limit);
    expect(loggable(`${limit}yz`)).toBe(`${limit}…`);
  });
});
