import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';

/** The body an SDK saves on launch: an iOS device with its token, one channel, its time zone and badge. */
function launchSave(deviceToken: string): string {
  return JSON.stringify({ deviceType: 'ios', deviceToken, channels: ['news'], timeZone: 'Europe/Paris', badge: 0 });
}

/** A device token of its own for request `n` of a run: 64 hex digits, the run's prefix first. */
function deviceToken(prefix: string, n: number): string {
  return `${prefix}${n.toString(16).padStart(64 - prefix.length, '0')}`;
}

/**
 * POST /1.1/installations as a device's first launch (a new token each
 * request: a new installation) and as every launch after (a token saved
 * before: the same installation updated). The re-saves cycle through the
 * devices the first scenario created, so no two requests in flight save one
 * installation, as devices launching at once would not.
 */
export class InstallationScenarios {
  readonly #prefix = randomBytes(4).toString('hex');
  #created = 0;
  #resaved = 0;

  /** autocannon requests that create a new installation each. */
  creates(): autocannon.Request[] {
    return [{ setupRequest: (request) => ({ ...request, body: launchSave(deviceToken(this.#prefix, this.#created++)) }) }];
  }

  /** autocannon requests that save again an installation `creates` made; throws when none was made. */
  resaves(): autocannon.Request[] {
    if (this.#created === 0) throw new Error('no installation was created to save again');
    const devices = this.#created;
    return [{ setupRequest: (request) => ({ ...request, body: launchSave(deviceToken(this.#prefix, this.#resaved++ % devices)) }) }];
  }
}
