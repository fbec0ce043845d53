import { rolesOf, type HeraldConfig } from '../config/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { PushStore } from '../core/ports/push-store.ts';
import { CredentialFiles } from '../push/gateways/credential-files.ts';
import { noPushEnds, type PushEnds } from '../push/outcomes/push-ends.ts';
import { loadWebhookEndpoints } from '../push/outcomes/webhooks/load-webhook-endpoints.ts';
import { PushDoneWatch } from '../push/outcomes/webhooks/push-done-watch.ts';
import type { WebhookMetrics } from '../push/outcomes/webhooks/webhook-metrics.ts';
import { Webhooks } from '../push/outcomes/webhooks/webhooks.ts';

/** The webhooks of a process and who tells them a push ended. */
export interface RuntimeWebhooks {
  /** Null when no app has an endpoint, or the process runs neither a sender nor a fan-out (which make every event). */
  readonly webhooks: Webhooks | null;
  /** Told where a push may have ended; sends `push.done` to the apps that take it. */
  readonly pushEnds: PushEnds;
  /** Waits for the push.done checks under way, then drains and closes the queues (`push.webhooks.shutdownDrainMs`). */
  close(): Promise<void>;
}

/**
 * The process's webhooks, made when it runs a role that makes events (a
 * sender: delivery events and push.done; a fan-out: push.done of pushes it
 * settles) and some app has endpoints. Secrets and the CA file
 * (`push.gateways.caFile`, the gateways' setting) are read here: a bad one
 * stops the start with a ConfigError naming the setting.
 */
export function openWebhooks(config: HeraldConfig, deps: { pushes: Pick<PushStore, 'get'>; clock: Clock; logger: Logger; metrics: WebhookMetrics }): RuntimeWebhooks {
  const roles = rolesOf(config.role);
  const makesEvents = roles.includes('sender') || roles.includes('fanout');
  const endpoints = makesEvents ? loadWebhookEndpoints(config.apps) : [];
  if (endpoints.length === 0) return { webhooks: null, pushEnds: noPushEnds, close: () => Promise.resolve() };
  const caFile = config.push.gateways.caFile;
  const ca = caFile === undefined ? undefined : new CredentialFiles({}).ca('push.gateways.caFile', caFile);
  const logger = deps.logger.child({ component: 'webhooks' });
  const webhooks = new Webhooks({ endpoints, settings: config.push.webhooks, ca, clock: deps.clock, logger, metrics: deps.metrics });
  const watch = new PushDoneWatch({ pushes: deps.pushes, webhooks, clock: deps.clock, logger });
  logger.info({ endpoints: endpoints.map((endpoint) => ({ app: endpoint.appId, endpoint: endpoint.name, origin: endpoint.url.origin, events: [...endpoint.events] })) }, 'webhooks configured');
  let closing: Promise<void> | undefined;
  return {
    webhooks,
    pushEnds: watch,
    close: () => {
      closing ??= watch.settled().then(() => webhooks.close());
      return closing;
    },
  };
}
