import { ConfigError } from '../../../config/load-config.ts';
import { minWebhookSecretLength, type WebhookEndpointConfig } from '../../../config/webhooks-schema.ts';
import { CredentialFiles } from '../../gateways/credential-files.ts';
import type { WebhookEndpoint } from './webhook-endpoint-queue.ts';

/** An app as this loader reads it. */
export interface WebhookApp {
  id: string;
  webhooks: readonly WebhookEndpointConfig[];
}

/**
 * Every app's endpoints with their secrets read (`secretFile`, or `secret`
 * as given), once, at start-up. A secret file that cannot be read, or holds
 * a secret too short, throws a `ConfigError` naming the setting, never the
 * secret.
 */
export function loadWebhookEndpoints(apps: readonly WebhookApp[], readFile?: (path: string) => Buffer): WebhookEndpoint[] {
  const files = new CredentialFiles(readFile === undefined ? {} : { readFile });
  return apps.flatMap((app, index) =>
    app.webhooks.map((endpoint, at) => {
      const key = `apps[${index}].webhooks[${at}].secretFile`;
      const secret = endpoint.secretFile === undefined ? (endpoint.secret as string) : files.secret(key, endpoint.secretFile);
      if (secret.length < minWebhookSecretLength) throw new ConfigError(`${key}: ${endpoint.secretFile} holds a secret shorter than ${minWebhookSecretLength} characters`);
      return { appId: app.id, name: endpoint.name, url: new URL(endpoint.url), secret, events: new Set(endpoint.events) };
    }),
  );
}
