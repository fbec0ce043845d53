import { setTimeout as delay } from 'node:timers/promises';
import { userClassDescriptor } from '../../../src/accounts/user-class.ts';
import { DuplicateValueError, ServiceUnavailableError } from '../../../src/core/errors.ts';
import type { StoredObject } from '../../../src/core/ports/object-store.ts';
import { readInstallationRow } from '../../../src/import/installation-rows.ts';
import { CassandraStore } from '../../../src/store/cassandra/cassandra-store.ts';
import { installationBody, type FleetDevice, type SaveReport } from '../../cluster/device-fleet.ts';
import type { PushCluster } from '../../cluster/push-cluster.ts';
import { replicated } from './replicated-backends.ts';

/** How long one device may take to be stored, retries included. */
const perDeviceMs = 120_000;

/** The objectId a fleet device is stored under. */
export function fleetObjectId(device: FleetDevice): string {
  return `fleet${String(device.n).padStart(8, '0')}`;
}

/**
 * Stores every device in the cluster's keyspace through Herald's own
 * Cassandra installation store, as `herald import` does (the same unique
 * claims, rows and index entries an API save makes, without the HTTP round
 * trips and the API nodes' reads), `inFlight` at a time. A write that fails
 * with Cassandra unavailable (a timeout on a busy cluster) is tried again
 * after a growing pause; one that then finds its row stored saves it again
 * as it is, which writes the index entries the attempt before may not have
 * (also when the attempt before lands only after the next one read
 * nothing: that one's insert finds the objectId taken, and is tried again). Seeding is not what the phase tests: the saves
 * through the API are (the account traffic and the 2,000 of the clock-skew
 * test).
 */
export async function seedFleetInStore(cluster: PushCluster, devices: readonly FleetDevice[], inFlight: number): Promise<SaveReport> {
  const started = performance.now();
  const store = await CassandraStore.open({
    contactPoints: [...replicated.cassandra],
    localDataCenter: replicated.localDataCenter,
    keyspace: cluster.keyspace,
    requestTimeoutMs: 12_000,
    classes: { _User: userClassDescriptor },
    installationShards: cluster.settings.installationShards,
  });
  const createdAt = new Date().toISOString();
  let next = 0;
  let resent = 0;
  const worker = async (): Promise<void> => {
    while (next < devices.length) {
      const device = devices[next++] as FleetDevice;
      const installation: StoredObject = readInstallationRow({ ...installationBody(device), objectId: fleetObjectId(device), createdAt });
      const deadline = performance.now() + perDeviceMs;
      for (let attempt = 1; ; attempt++) {
        try {
          const stored = attempt === 1 ? null : await store.installations.get(cluster.app.id, installation.objectId);
          if (stored === null) await store.installations.insert(cluster.app.id, installation);
          // The attempt before wrote the row and may have stopped before its index entries: saving it again as it is finishes them.
          else await store.installations.update(cluster.app.id, stored.objectId, [], { updatedAt: stored.updatedAt });
          break;
        } catch (error) {
          // A resend that finds the row taken: the attempt that timed out was applied after this one read nothing, so the next reads it.
          const landedLate = attempt > 1 && error instanceof DuplicateValueError && error.field === 'objectId';
          if (!(error instanceof ServiceUnavailableError || landedLate) || performance.now() > deadline) throw error;
        }
        resent++;
        await delay(Math.min(8000, 500 * 2 ** (attempt - 1)));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: inFlight }, worker));
  } finally {
    await store.close();
  }
  return { saved: devices.length, resent, seconds: (performance.now() - started) / 1000 };
}
