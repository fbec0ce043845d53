import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../../src/coord/memory/memory-coordination.ts';
import { ConsoleSessions } from '../../../src/console/session/console-sessions.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const clock = new ManualClock();
const coord = new MemoryCoordination({ clock });
const sessions = new ConsoleSessions({ coord, clock }, { idleMs: 30 * 60_000, maxMs: 12 * 3_600_000 });

afterEach(() => clock.advance(1));

describe('console sessions', () => {
  it('keep only a digest of the token, and answer the session for the token', async () => {
    const { token, session } = await sessions.create('ada', '$argon2id$hash-one');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.id).not.toContain(token);
    expect(await coord.get(`console:session:${token}`)).toBeNull();
    expect((await sessions.read(token))?.username).toBe('ada');
    // The same token but for its last character, changed (a token may end in any of them).
    expect(await sessions.read(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(await sessions.read('not a token')).toBeNull();
  });

  it('tell whether the password hash is still the one signed in with', async () => {
    const { session } = await sessions.create('ada', '$argon2id$hash-one');
    expect(ConsoleSessions.sameCredential(session, '$argon2id$hash-one')).toBe(true);
    expect(ConsoleSessions.sameCredential(session, '$argon2id$hash-two')).toBe(false);
  });

  it('end one session, or every session of an account made before sign out everywhere', async () => {
    const first = await sessions.create('bob', 'h');
    const second = await sessions.create('bob', 'h');
    const other = await sessions.create('cy', 'h');
    await sessions.end(first.session);
    expect(await sessions.read(first.token)).toBeNull();
    expect(await sessions.read(second.token)).not.toBeNull();
    clock.advance(1);
    await sessions.endAll('bob');
    expect(await sessions.read(second.token)).toBeNull();
    expect(await sessions.read(other.token)).not.toBeNull();
    clock.advance(1);
    const after = await sessions.create('bob', 'h');
    expect(await sessions.read(after.token)).not.toBeNull();
  });
});
