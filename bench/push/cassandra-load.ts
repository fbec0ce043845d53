import { resolve } from 'node:path';
import { ChildRpc } from '../../test/support/child-rpc.ts';
import { serviceEndpoints } from '../../test/support/service-endpoints.ts';
import type { RunProbe } from './measured-run.ts';

const childScript = resolve(import.meta.dirname, 'cassandra-load-child.ts');

export interface CassandraLoadOptions {
  contactPoint: string;
  localDataCenter: string;
  /** The local Cassandra's pid, whose CPU the load steers by. */
  cassandraPid: number;
  /** Cores of Cassandra's CPU to keep busy. */
  cores: number;
}

export interface CassandraLoadReport {
  seconds: number;
  /** Cassandra's CPU over those seconds, in cores (the load's reads and anything else it did). */
  cassandraCores: number;
  reads: number;
}

export type CassandraLoadCommand = { type: 'start'; options: CassandraLoadOptions } | { type: 'report' } | { type: 'close' };

/** How long the load runs before a broadcast, for its pace to settle. */
const settleMs = 2000;

/**
 * Keeps the local Cassandra busy at a given share of the cores, from a child
 * process of its own, with reads that have nothing to do with Herald. The
 * distributed bench runs the embedded setup once more beside it, at the
 * Cassandra CPU the distributed broadcast just caused: on a 2-core machine,
 * Herald sharing the cores with a busy Cassandra costs more per delivery, and
 * that run says how much of the distributed setup's extra cost is the
 * machine's rather than Herald's.
 */
export class CassandraLoad {
  readonly #child: ChildRpc<CassandraLoadCommand>;

  private constructor(child: ChildRpc<CassandraLoadCommand>) {
    this.#child = child;
  }

  static async start(cassandraPid: number, cores: number): Promise<CassandraLoad> {
    const child = new ChildRpc<CassandraLoadCommand>(childScript, 'Cassandra load');
    const { contactPoints, localDataCenter } = serviceEndpoints.cassandra;
    try {
      await child.call({ type: 'start', options: { contactPoint: contactPoints[0] ?? '', localDataCenter, cassandraPid, cores } });
    } catch (error) {
      child.kill();
      throw error;
    }
    return new CassandraLoad(child);
  }

  /** Cassandra's cores since the last report. */
  async report(): Promise<CassandraLoadReport> {
    return (await this.#child.call({ type: 'report' })) as CassandraLoadReport;
  }

  close(): Promise<void> {
    return this.#child.close({ type: 'close' });
  }
}

/**
 * Runs a `CassandraLoad` at `cores` from just before the broadcast (after its
 * pace has settled) until the push record reads `done`, and keeps Cassandra's
 * cores over the broadcast as `cassandraLoad`.
 */
export function cassandraLoadProbe(cassandraPid: number, cores: number): RunProbe {
  let load: CassandraLoad | undefined;
  return {
    beforeBroadcast: async () => {
      load = await CassandraLoad.start(cassandraPid, cores);
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      await load.report();
    },
    afterBroadcast: async () => {
      if (load === undefined) throw new Error('the Cassandra load did not start');
      try {
        const report = await load.report();
        return { cassandraLoad: { targetCores: round2(cores), cassandraCores: round2(report.cassandraCores), reads: report.reads } };
      } finally {
        await load.close();
        load = undefined;
      }
    },
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
