// The names only, without the driver: the config schema reads them (store.consistency), and an embedded Herald never loads the driver.

/**
 * The levels Herald may read and write at. Each needs a majority of replicas
 * (of the local datacenter, of every datacenter, or of all of them): Herald's
 * revisions, unique claims and push records are read back by other nodes and
 * must be seen, which takes reads and writes that overlap (R + W > RF). ONE
 * and LOCAL_ONE would lose that, so they are not offered.
 */
export const readWriteLevels = ['LOCAL_QUORUM', 'QUORUM', 'EACH_QUORUM', 'ALL'] as const;
export type ReadWriteLevel = (typeof readWriteLevels)[number];

/** Paxos of lightweight transactions: among the local datacenter's replicas, or among all of them. */
export const serialLevels = ['LOCAL_SERIAL', 'SERIAL'] as const;
export type SerialLevel = (typeof serialLevels)[number];

/** The consistency levels of Herald's statements. */
export interface CassandraConsistency {
  /** Every SELECT. */
  read: ReadWriteLevel;
  /** Every write, and the commit of a lightweight transaction. */
  write: ReadWriteLevel;
  /** The Paxos rounds of lightweight transactions (the unique claims, revisions, leases), and reads that must see them settled. */
  serial: SerialLevel;
}

export const cassandraConsistencyDefaults: Readonly<CassandraConsistency> = Object.freeze({ read: 'LOCAL_QUORUM', write: 'LOCAL_QUORUM', serial: 'LOCAL_SERIAL' });
