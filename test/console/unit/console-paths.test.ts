import { describe, expect, it } from 'vitest';
import { safeNext } from '../../../src/console/console-paths.ts';
import { readCookie, serializeCookie } from '../../../src/console/session/session-cookie.ts';
import { roleAllows, seesApp } from '../../../src/console/session/console-accounts.ts';

describe('where sign-in goes next', () => {
  it.each([
    ['/console/apps/shop/pushes?status=done', '/console/apps/shop/pushes?status=done'],
    ['//evil.example/console/', '/console/'],
    ['https://evil.example/console/', '/console/'],
    ['/console/\\evil.example', '/console/'],
    ['/console//evil.example', '/console/'],
    ['/1.1/users', '/console/'],
    ['/console/\napps', '/console/'],
    [undefined, '/console/'],
  ])('%j goes to %j', (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });
});

describe('the console cookies', () => {
  it('are HttpOnly, SameSite=Strict and on /console, Secure only when asked', () => {
    expect(serializeCookie('herald_console', 'abc', { secure: false })).toBe('herald_console=abc; Path=/console; HttpOnly; SameSite=Strict');
    expect(serializeCookie('herald_console', 'abc', { secure: true, maxAgeSeconds: 0 })).toBe('herald_console=abc; Path=/console; HttpOnly; SameSite=Strict; Secure; Max-Age=0');
  });

  it('are read from a Cookie header by exact name', () => {
    expect(readCookie('a=1; herald_console_signin=2; herald_console=3', 'herald_console')).toBe('3');
    expect(readCookie('xherald_console=1', 'herald_console')).toBeUndefined();
    expect(readCookie(undefined, 'herald_console')).toBeUndefined();
  });
});

describe('roles and apps', () => {
  it.each([
    ['viewer', 'read', true],
    ['viewer', 'send', false],
    ['viewer', 'unlock', false],
    ['operator', 'send', true],
    ['operator', 'cancel', true],
    ['operator', 'deleteDevice', true],
    ['operator', 'settings', false],
    ['operator', 'audit', false],
    ['admin', 'audit', true],
  ] as const)('%s may %s: %s', (role, action, allowed) => {
    expect(roleAllows(role, action)).toBe(allowed);
  });

  it('sees the apps it names, or every app with *', () => {
    expect(seesApp({ apps: ['shop'] }, 'shop')).toBe(true);
    expect(seesApp({ apps: ['shop'] }, 'game')).toBe(false);
    expect(seesApp({ apps: ['*'] }, 'game')).toBe(true);
  });
});
