import { honorAppSchema } from '../../../../config/makers/honor-schema.ts';
import { defineMaker } from '../maker.ts';
import { loadHonorProfiles } from './honor-credentials.ts';
import { honorOverrideFields } from './honor-message.ts';
import { HonorProtocol } from './honor-protocol.ts';

/**
 * Honor Push: installations whose vendor is `honor` (as the hosted service's
 * SDK writes it); notification and silent (pass-through) messages; up to
 * 1000 tokens a request.
 */
export const honorMaker = defineMaker({
  gateway: 'honor',
  vendors: { honor: '' },
  silent: true,
  overrideFields: honorOverrideFields,
  schema: honorAppSchema,
  load: loadHonorProfiles,
  protocol: (profile, context) => new HonorProtocol(profile, context),
});
