import type { Logger } from '../../core/logger.ts';
import { appGatewaysOf, gatewayList } from './app-gateways.ts';
import type { PushApp } from './load-push-credentials.ts';

/**
 * Says at a sender's start which gateways each app can send through, and
 * warns, naming the app, about one that has no push credentials at all: its
 * pushes are accepted and reach no device (each counts `NoApnsCredentials`,
 * `NoFcmCredentials` or `NoVendorCredentials`, and the record's
 * `errorMessage` says so).
 */
export function logAppGateways(apps: readonly PushApp[], logger: Logger): void {
  for (const app of apps) {
    const gateways = gatewayList(appGatewaysOf(app.push));
    if (gateways.length > 0) {
      logger.info({ app: app.id, gateways }, 'push gateways of the app');
    } else {
      logger.warn(
        { app: app.id },
        'app has no push credentials (apps[].push: apns, fcm or a phone maker): its pushes are accepted but reach no device, each counted an error (NoApnsCredentials, NoFcmCredentials)',
      );
    }
  }
}
