import { vivoAppSchema } from '../../../../config/makers/vivo-schema.ts';
import { defineMaker } from '../maker.ts';
import { loadVivoProfiles } from './vivo-credentials.ts';
import { vivoOverrideFields } from './vivo-message.ts';
import { VivoProtocol } from './vivo-protocol.ts';

/**
 * vivo Push: installations whose vendor is `vivo` (as the hosted service's
 * SDK writes it); notifications only (vivo's pass-through message is
 * retired, so a silent push counts `SilentNotSupported`); one regId through
 * `/message/send`, 2 to 1000 through a saved message and `/message/pushToList`.
 */
export const vivoMaker = defineMaker({
  gateway: 'vivo',
  vendors: { vivo: '' },
  silent: false,
  overrideFields: vivoOverrideFields,
  schema: vivoAppSchema,
  load: loadVivoProfiles,
  protocol: (profile, context) => new VivoProtocol(profile, context),
});
