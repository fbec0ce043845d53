import { servicesUp } from '../../scripts/services/services.ts';

/**
 * Vitest globalSetup: brings the local Cassandra, Kafka and Redis up before
 * any test file runs, or fails the run with each failed service's log tail;
 * tests never skip for want of a service. A no-op when they already run.
 * They are left running for the next run: stop them with
 * `npm run services -- down`.
 */
export default async function setup(): Promise<void> {
  await servicesUp([], { report: (line) => process.stdout.write(`services: ${line}\n`) });
}
