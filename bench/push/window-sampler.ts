import type { GatewayName } from '../../src/push/gateways/delivery.ts';

/** A gateway's delivery window as Herald's `/metrics` reports it now (`herald_push_delivery_window{gateway}`). */
export async function readWindow(port: number, gateway: GatewayName): Promise<number> {
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const prefix = `herald_push_delivery_window{gateway="${gateway}"} `;
  const line = metrics.split('\n').find((row) => row.startsWith(prefix));
  if (line === undefined) throw new Error(`Herald reports no herald_push_delivery_window for ${gateway}`);
  return Number(line.slice(prefix.length));
}

/** Reads a gateway's window every `everyMs` until stopped; answers the largest and the last value read. */
export function windowSampler(port: number, gateway: GatewayName, everyMs = 100): { stop(): Promise<{ largest: number; last: number }> } {
  let largest = 0;
  let last = 0;
  let failure: Error | undefined;
  let reading: Promise<void> = Promise.resolve();
  const sample = (): void => {
    reading = readWindow(port, gateway).then(
      (size) => {
        largest = Math.max(largest, size);
        last = size;
      },
      (error: unknown) => {
        failure ??= error instanceof Error ? error : new Error(String(error));
      },
    );
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await reading;
      sample();
      await reading;
      if (failure !== undefined) throw failure;
      return { largest, last };
    },
  };
}
