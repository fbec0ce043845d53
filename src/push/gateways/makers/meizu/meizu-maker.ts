import { meizuAppSchema } from '../../../../config/makers/meizu-schema.ts';
import { defineMaker } from '../maker.ts';
import { loadMeizuProfiles } from './meizu-credentials.ts';
import { meizuOverrideFields } from './meizu-message.ts';
import { MeizuProtocol } from './meizu-protocol.ts';

/**
 * Meizu Flyme Push: installations whose vendor is `mz` (as the hosted
 * service's SDK writes it), `meizu` or `flyme`; notification messages only
 * (a silent push counts `SilentNotSupported` for these devices); up to 100
 * pushIds a request.
 */
export const meizuMaker = defineMaker({
  gateway: 'meizu',
  vendors: { mz: '', meizu: '', flyme: '' },
  silent: false,
  overrideFields: meizuOverrideFields,
  schema: meizuAppSchema,
  load: loadMeizuProfiles,
  protocol: (profile, context) => new MeizuProtocol(profile, context),
});
