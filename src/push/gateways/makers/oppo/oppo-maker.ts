import { oppoAppSchema } from '../../../../config/makers/oppo-schema.ts';
import { defineMaker } from '../maker.ts';
import { loadOppoProfiles } from './oppo-credentials.ts';
import { oppoOverrideFields } from './oppo-message.ts';
import { OppoProtocol } from './oppo-protocol.ts';

/**
 * OPPO Push: installations whose vendor is `oppo` (as the hosted service's
 * SDK writes it); notifications only (OPPO has no pass-through message, so a
 * silent push counts `SilentNotSupported`); up to 1000 messages a request.
 */
export const oppoMaker = defineMaker({
  gateway: 'oppo',
  vendors: { oppo: '' },
  silent: false,
  overrideFields: oppoOverrideFields,
  schema: oppoAppSchema,
  load: loadOppoProfiles,
  protocol: (profile, context) => new OppoProtocol(profile, context),
});
