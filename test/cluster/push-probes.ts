import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'vitest';
import { NoAnswerError, type ApiClient } from './api-client.ts';
import { audienceOf, type Audience, type FleetDevice } from './device-fleet.ts';

interface Probe {
  marker: string;
  devices: FleetDevice[];
  /** The HTTP status, or 0 when no answer came. */
  status: number;
}

/** Between probes: a steady trickle, not a load. */
const probeIntervalMs = 200;
const probeSize = 5;

/**
 * Small device-list pushes sent in turn to each API node while a backend is
 * taken away, as a backend would keep sending: each must be accepted (and
 * then delivered) or refused with 503 and leave nothing behind.
 */
export class PushProbes {
  readonly probes: Probe[] = [];
  readonly statuses = new Set<number>();
  /** Probes accepted after the first refusal: the API took pushes again. */
  acceptedSinceRefusal = 0;
  readonly #ios: FleetDevice[];
  readonly #stop = new AbortController();

  constructor(fleet: readonly FleetDevice[]) {
    this.#ios = fleet.filter((device) => device.platform === 'ios');
  }

  /** Sends probes round robin until `stop`. */
  async run(clients: readonly ApiClient[]): Promise<void> {
    for (let n = 0; !this.#stop.signal.aborted; n++) {
      const start = (n * probeSize) % (this.#ios.length - probeSize);
      const probe: Probe = { marker: `probe${n}${randomBytes(2).toString('hex')}`, devices: this.#ios.slice(start, start + probeSize), status: 0 };
      const client = clients[n % clients.length] as ApiClient;
      try {
        const answer = await client.pushToDevices({
          device_type: 'ios',
          device_ids: probe.devices.map((device) => device.address),
          data: { alert: 'Probe', marker: probe.marker },
          notification_id: probe.marker,
        });
        probe.status = answer.status;
      } catch (error) {
        if (!(error instanceof NoAnswerError)) throw error;
      }
      this.probes.push(probe);
      this.statuses.add(probe.status);
      if (probe.status === 201 && this.statuses.has(503)) this.acceptedSinceRefusal++;
      await delay(probeIntervalMs, undefined, { signal: this.#stop.signal }).catch(() => undefined);
    }
  }

  async stop(running: Promise<void>): Promise<void> {
    this.#stop.abort();
    await running;
  }

  describe(): string {
    const counts = new Map<number, number>();
    for (const probe of this.probes) counts.set(probe.status, (counts.get(probe.status) ?? 0) + 1);
    return `probes by status (0: no answer): ${JSON.stringify(Object.fromEntries(counts))}`;
  }

  /** Every accepted probe reached its devices exactly once, with exact counters. */
  async expectAcceptedDelivered(exactlyOnce: (marker: string, audience: Audience) => Promise<unknown>): Promise<void> {
    for (const probe of this.probes) if (probe.status === 201) await exactlyOnce(probe.marker, audienceOf(probe.devices));
  }

  /** A refused probe left no push record behind and reached no device; `delivered` counts what the fakes accepted of a push. */
  async expectRefusedAbsent(api: () => ApiClient, delivered: (marker: string) => number): Promise<void> {
    for (const probe of this.probes) {
      if (probe.status !== 503) continue;
      const record = await api().notification(probe.marker);
      expect(record.status, `the refused push ${probe.marker} left a record: ${JSON.stringify(record.body)}`).toBe(404);
      expect(delivered(probe.marker), `the refused push ${probe.marker} reached devices`).toBe(0);
    }
  }
}
