interface Connectable {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

/** A kafkajs client connected on first use; a failed connect is tried again on the next. */
export class LazyConnection<T extends Connectable> {
  readonly #client: T;
  #connected: Promise<T> | null = null;

  constructor(client: T) {
    this.#client = client;
  }

  get(): Promise<T> {
    this.#connected ??= this.#client.connect().then(
      () => this.#client,
      (error: unknown) => {
        this.#connected = null;
        throw error;
      },
    );
    return this.#connected;
  }

  async close(): Promise<void> {
    const connected = this.#connected;
    this.#connected = null;
    if (connected === null) return;
    const client = await connected.catch(() => null);
    await client?.disconnect();
  }
}
