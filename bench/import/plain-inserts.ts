/**
 * The floor `bench:import` compares `herald import` with: the rows an
 * import of one export file writes (each object's document, a claim row per
 * unique value, an installation's index entries), written as plain
 * unconditional inserts — no lightweight transaction, no read — in unlogged
 * batches per partition of the same sizes, prepared, at most `--concurrency`
 * batches in flight. Run as its own process, as the import is; reads the
 * file and prepares each row exactly as the import does. Prints
 * `{"rows": n, "seconds": s, "cqlRows": n, "cpuSeconds": s}` (cqlRows: the table rows written, over all
 * batches; cpuSeconds: this process's CPU from its start, as /proc counts it).
 *
 * `node bench/import/plain-inserts.ts --file F --keyspace K --app A --concurrency N [--shards 64] [--contact-points host:port,…]`
 */
import { parseArgs } from 'node:util';
import { userClassDescriptor } from '../../src/accounts/user-class.ts';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { describeExportFile } from '../../src/import/export-file.ts';
import { bulkBatchRows } from '../../src/import/class-writer.ts';
import { bulkBatchesInFlight as unitsInFlight } from '../../src/import/import-run.ts';
import { readExportRows } from '../../src/import/export-rows.ts';
import { readInstallationRow } from '../../src/import/installation-rows.ts';
import { readUserRow } from '../../src/import/user-rows.ts';
import { claimsPerBatch, documentBatchBytes, documentsPerBatch, entriesPerBatch } from '../../src/store/cassandra/cassandra-bulk-inserts.ts';
import { connectCassandra } from '../../src/store/cassandra/cassandra-client.ts';
import { claimKeyParams, claimStatements } from '../../src/store/cassandra/claim-rows.ts';
import { InstallationIndexEntries } from '../../src/store/cassandra/installation-index-entries.ts';
import { InstallationRows } from '../../src/store/cassandra/installation-rows.ts';
import { objectBucket, ObjectTable } from '../../src/store/cassandra/object-table.ts';
import { PlainBatcher, type BatchedRow } from '../../src/store/cassandra/partition-batcher.ts';
import { deviceKeys, installationIndexKeys, installationShard } from '../../src/store/installation-shards.ts';
import { serviceEndpoints } from '../../test/support/service-endpoints.ts';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    keyspace: { type: 'string' },
    app: { type: 'string' },
    concurrency: { type: 'string', default: '64' },
    shards: { type: 'string', default: '64' },
    'contact-points': { type: 'string' },
  },
});
const { file: path, keyspace, app: appId } = values;
if (path === undefined || keyspace === undefined || appId === undefined) throw new Error('--file, --keyspace and --app are required');
const concurrency = Number(values.concurrency);
const shards = Number(values.shards);


const contactPoints = values['contact-points']?.split(',') ?? [...serviceEndpoints.cassandra.contactPoints];
const client = await connectCassandra({ contactPoints, localDataCenter: serviceEndpoints.cassandra.localDataCenter, keyspace });
const shardOf = (objectId: string): number => installationShard(objectId, shards);
const objects = new ObjectTable(client, keyspace, 500);
const installations = new InstallationRows(client, keyspace, shardOf);
const index = new InstallationIndexEntries(client, keyspace, shardOf);
const claimInsert = unconditional(claimStatements(keyspace).claim);
const inFlight = () => concurrency;
const claims = new PlainBatcher(client, { maxRows: claimsPerBatch, inFlight });
const documents = new PlainBatcher(client, { maxRows: documentsPerBatch, maxBytes: documentBatchBytes, inFlight });
const entries = new PlainBatcher(client, { maxRows: entriesPerBatch, inFlight });

function unconditional(query: string): string {
  return query.replace(/\s+IF NOT EXISTS\s*$/, '');
}

function claimRows(className: string, objectId: string, keys: readonly { field: string; value: string }[]): BatchedRow[] {
  return keys.map((key) => {
    const params = claimKeyParams(appId as string, className, key);
    return { group: `${className}\u0000${String(params[2])}`, statement: { query: claimInsert, params: [...params, objectId, 'plain-claim-id'] } };
  });
}

/** The rows an import writes for one object, each with the batcher it goes through. */
function rowsOf(className: string, object: StoredObject): [PlainBatcher, BatchedRow][] {
  const doc = JSON.stringify(object);
  if (className === '_User') {
    const statement = objects.insertStatement(appId as string, className, object, doc);
    return [
      ...claimRows(className, object.objectId, userClassDescriptor.uniqueKeys(object)).map((row) => [claims, row] as [PlainBatcher, BatchedRow]),
      [documents, { group: `o\u0000${String(objectBucket(object.objectId))}`, statement: { ...statement, query: unconditional(statement.query) }, bytes: Buffer.byteLength(doc) }],
    ];
  }
  const ts = Date.now() * 1000;
  const added = installationIndexKeys(object);
  const statement = installations.insertStatement(appId as string, object, doc, ts, added);
  return [
    ...claimRows(className, object.objectId, deviceKeys(object)).map((row) => [claims, row] as [PlainBatcher, BatchedRow]),
    [documents, { group: `i\u0000${String(shardOf(object.objectId))}`, statement: { ...statement, query: unconditional(statement.query) }, bytes: Buffer.byteLength(doc) }],
    ...index.addRows(appId as string, object.objectId, added, ts).map((row) => [entries, row] as [PlainBatcher, BatchedRow]),
  ];
}

const file = await describeExportFile(path);
const className = file.className;
if (className !== '_User' && className !== '_Installation') throw new Error(`${path} holds neither users nor installations`);
/** Rows prepared at once, `unitsInFlight` such units at a time, as the import's bulk writes. */
const rowsPerUnit = bulkBatchRows[className];
const started = performance.now();
let rows = 0;
let cqlRows = 0;
let unit: Promise<void>[] = [];
const units = new Set<Promise<void>>();
const close = async (): Promise<void> => {
  const done: Promise<void> = Promise.all(unit).then(() => {
    units.delete(done);
  });
  units.add(done);
  unit = [];
  while (units.size >= unitsInFlight) await Promise.race(units);
};
for await (const raw of readExportRows(file, { from: file.dataStart })) {
  if (raw.text === null) continue;
  const row = JSON.parse(raw.text) as Record<string, unknown>;
  const object = className === '_User' ? readUserRow(row, { newSessionToken: () => 'unused' }) : readInstallationRow(row);
  for (const [batcher, batched] of rowsOf(className, object)) {
    cqlRows += 1;
    unit.push(batcher.write(batched));
  }
  rows += 1;
  if (rows % rowsPerUnit === 0) await close();
}
await close();
await Promise.all(units);
const seconds = (performance.now() - started) / 1000;
await client.shutdown();
const { user, system } = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ rows, seconds, cqlRows, cpuSeconds: (user + system) / 1e6 })}\n`);
