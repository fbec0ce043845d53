import { Client } from 'cassandra-driver';
import { serveChildRpc } from '../../test/support/child-rpc.ts';
import { cpuSeconds } from './process-stats.ts';
import type { CassandraLoadCommand, CassandraLoadOptions, CassandraLoadReport } from './cassandra-load.ts';

/**
 * The child side of `CassandraLoad`: reads from Cassandra, one read in flight,
 * pausing between reads so that Cassandra's own CPU (read from /proc every
 * `stepMs`) stays near the target. It exits when the parent goes away.
 */
const stepMs = 250;
/** A read Cassandra serves from memory with some work: the schema's columns, one page of 500. */
const query = 'SELECT * FROM system_schema.columns';

let load: Load | undefined;

serveChildRpc(run);

async function run(command: CassandraLoadCommand): Promise<unknown> {
  switch (command.type) {
    case 'start':
      if (load !== undefined) throw new Error('the load is already running');
      load = await Load.start(command.options);
      return null;
    case 'report':
      if (load === undefined) throw new Error('the load is not running');
      return load.report();
    case 'close':
      await load?.close();
      load = undefined;
      setImmediate(() => process.exit(0));
      return null;
  }
}

class Load {
  readonly #client: Client;
  readonly #options: CassandraLoadOptions;
  readonly #timer: NodeJS.Timeout;
  #pauseMs = 2;
  #reads = 0;
  #stopped = false;
  #running: Promise<void>;
  #stepAt = performance.now();
  #stepCpu: number;
  #window = { at: performance.now(), cpu: 0, reads: 0 };

  private constructor(client: Client, options: CassandraLoadOptions) {
    this.#client = client;
    this.#options = options;
    this.#stepCpu = cpuSeconds(options.cassandraPid);
    this.#window.cpu = this.#stepCpu;
    this.#timer = setInterval(() => this.#step(), stepMs);
    this.#running = this.#loop();
  }

  static async start(options: CassandraLoadOptions): Promise<Load> {
    const client = new Client({ contactPoints: [options.contactPoint], localDataCenter: options.localDataCenter });
    await client.connect();
    return new Load(client, options);
  }

  /** Cassandra's cores and the reads made since the last report. */
  report(): CassandraLoadReport {
    const now = { at: performance.now(), cpu: cpuSeconds(this.#options.cassandraPid), reads: this.#reads };
    const seconds = (now.at - this.#window.at) / 1000;
    const report = { seconds, cassandraCores: seconds > 0 ? (now.cpu - this.#window.cpu) / seconds : 0, reads: now.reads - this.#window.reads };
    this.#window = now;
    return report;
  }

  async close(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#running;
    await this.#client.shutdown();
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      await this.#client.execute(query, [], { prepare: true, fetchSize: 500 });
      this.#reads += 1;
      await new Promise((resolve) => setTimeout(resolve, this.#pauseMs));
    }
  }

  /** Shorter pauses while Cassandra is below the target, longer above it. */
  #step(): void {
    const at = performance.now();
    const cpu = cpuSeconds(this.#options.cassandraPid);
    const cores = (cpu - this.#stepCpu) / ((at - this.#stepAt) / 1000);
    this.#stepAt = at;
    this.#stepCpu = cpu;
    const factor = Math.min(2, Math.max(0.5, cores / Math.max(0.01, this.#options.cores)));
    this.#pauseMs = Math.min(200, Math.max(0, this.#pauseMs * factor + (factor > 1 ? 0.5 : 0)));
  }
}
