import type { types } from 'cassandra-driver';
import { chunks } from '../../core/chunks.ts';
import type { CqlSession, CqlStatement } from './cassandra-client.ts';
import { claimBucket } from './claim-rows.ts';

/** Rows read before they are written out, grouped by partition. */
const rowsPerRound = 5000;
/** Statements of one unlogged batch (all in one partition). */
const rowsPerBatch = 100;
/** Batches in flight at once. */
const batchesInFlight = 8;
/** How often a long copy renews the schema lease (it lives 60 s). */
const renewEveryMs = 20_000;

/**
 * Keyspace migration 6's data step: every claim of `unique_values` (one
 * partition per value) written into `unique_claims` (partitions of many
 * values), as a pending claim with the write time of its claim id, so a
 * claim made in the last 30 s keeps its grace period and an older one is
 * held exactly while its object holds the value. `unique_values` has lost
 * its `confirmed` column just before (the step's DDL), so a node of the
 * version before, still running, can no longer claim there: no claim is
 * made behind the copy's back. Rows are written without lightweight
 * transactions (nothing else writes `unique_claims` until the migration is
 * recorded) in unlogged batches per partition; running it again writes the
 * same cells at the same timestamps. Answers the number of claims copied.
 */
export async function moveClaims(session: CqlSession, keyspace: string, renew: () => Promise<void>): Promise<number> {
  const insert = `INSERT INTO ${keyspace}.unique_claims (app_id, class, bucket, field, value, object_id, claim_id, confirmed)
    VALUES (?, ?, ?, ?, ?, ?, ?, false) USING TIMESTAMP ?`;
  const result = await session.execute(
    `SELECT app_id, class, field, value, object_id, claim_id, WRITETIME(object_id) AS object_written, WRITETIME(claim_id) AS claim_written
     FROM ${keyspace}.unique_values`,
    [],
    { fetchSize: 1000 },
  );
  let renewedAt = Date.now();
  let copied = 0;
  let round: CqlStatement[][] = [];
  const partitions = new Map<string, CqlStatement[]>();
  const flush = async (): Promise<void> => {
    for (const statements of partitions.values()) round.push(...chunks(statements, rowsPerBatch));
    partitions.clear();
    const batches = round;
    round = [];
    await Promise.all(
      Array.from({ length: batchesInFlight }, async () => {
        for (let batch = batches.pop(); batch !== undefined; batch = batches.pop()) {
          await session.batch(batch, { logged: false });
          copied += batch.length;
        }
      }),
    );
    if (Date.now() - renewedAt > renewEveryMs) {
      await renew();
      renewedAt = Date.now();
    }
  };
  let read = 0;
  for await (const row of result) {
    const claim = claimOf(row);
    if (claim === null) continue;
    const bucket = claimBucket({ field: claim.field, value: claim.value });
    const partition = `${claim.appId}\u0000${claim.className}\u0000${bucket}`;
    const statements = partitions.get(partition) ?? [];
    statements.push({ query: insert, params: [claim.appId, claim.className, bucket, claim.field, claim.value, claim.objectId, claim.claimId, claim.written] });
    partitions.set(partition, statements);
    read += 1;
    if (read % rowsPerRound === 0) await flush();
  }
  await flush();
  return copied;
}

interface OldClaim {
  appId: string;
  className: string;
  field: string;
  value: string;
  objectId: string;
  claimId: string;
  written: types.Long;
}

/** A row of `unique_values` with what the copy needs, or null for a row without an object (none is written so). */
function claimOf(row: types.Row): OldClaim | null {
  const objectId: unknown = row.get('object_id');
  if (typeof objectId !== 'string') return null;
  const claimId: unknown = row.get('claim_id');
  const claimWritten = row.get('claim_written') as types.Long | null;
  const objectWritten = row.get('object_written') as types.Long;
  const written = claimWritten !== null && claimWritten.greaterThan(objectWritten) ? claimWritten : objectWritten;
  return {
    appId: String(row.get('app_id')),
    className: String(row.get('class')),
    field: String(row.get('field')),
    value: String(row.get('value')),
    objectId,
    claimId: typeof claimId === 'string' ? claimId : 'moved',
    written,
  };
}
