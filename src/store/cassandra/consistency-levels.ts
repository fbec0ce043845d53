import { types, type ArrayOrObject, type QueryOptions } from 'cassandra-driver';
import type { CqlSession, CqlStatement } from './cassandra-client.ts';
import type { CassandraConsistency, ReadWriteLevel, SerialLevel } from '../../config/cassandra-consistency.ts';

const codes: Readonly<Record<ReadWriteLevel | SerialLevel, number>> = {
  LOCAL_QUORUM: types.consistencies.localQuorum,
  QUORUM: types.consistencies.quorum,
  EACH_QUORUM: types.consistencies.eachQuorum,
  ALL: types.consistencies.all,
  LOCAL_SERIAL: types.consistencies.localSerial,
  SERIAL: types.consistencies.serial,
};

/** The driver's code of a level. */
export function consistencyCode(level: ReadWriteLevel | SerialLevel): number {
  return codes[level];
}

/** The level a read that must see lightweight transactions settled asks for; the session puts the configured serial level in its place. */
export const serialRead = types.consistencies.serial;

const serialCodes = new Set<number>([types.consistencies.serial, types.consistencies.localSerial]);

/**
 * `session` with Herald's levels on every statement that does not name its
 * own: SELECTs at `read` (and marked idempotent, so that the driver tries
 * them on another node when the one asked dies mid-request), everything else
 * at `write`, Paxos at `serial`. A statement asking for a serial read gets
 * the configured serial level. A batch writes at `write`, and its
 * conditions, if any, at `serial`.
 */
export function leveledSession(session: CqlSession, levels: CassandraConsistency): CqlSession {
  const read = consistencyCode(levels.read);
  const write = consistencyCode(levels.write);
  const serial = consistencyCode(levels.serial);
  return {
    execute(query: string, params?: ArrayOrObject, options: QueryOptions = {}): Promise<types.ResultSet> {
      const reading = isRead(query);
      const asked = options.consistency;
      const consistency = asked === undefined ? (reading ? read : write) : serialCodes.has(asked) ? serial : asked;
      return session.execute(query, params, { isIdempotent: reading, ...options, consistency, serialConsistency: options.serialConsistency ?? serial });
    },
    batch(statements: CqlStatement[], options: QueryOptions = {}): Promise<types.ResultSet> {
      return session.batch(statements, { ...options, consistency: write, serialConsistency: serial });
    },
  };
}

function isRead(query: string): boolean {
  return /^\s*select\b/i.test(query);
}
