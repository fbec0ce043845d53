import { hmsAppSchema } from '../../../../config/makers/hms-schema.ts';
import { defineMaker } from '../maker.ts';
import { loadHmsProfiles } from './hms-credentials.ts';
import { hmsOverrideFields } from './hms-message.ts';
import { HmsProtocol } from './hms-protocol.ts';

/**
 * Huawei Push Kit (HMS): installations whose vendor is `HMS` (as the hosted
 * service's SDK writes it), `hms` or `huawei`; notification and silent
 * (pass-through) messages; up to 1000 tokens a request.
 */
export const hmsMaker = defineMaker({
  gateway: 'hms',
  vendors: { HMS: '', hms: '', huawei: '' },
  silent: true,
  overrideFields: hmsOverrideFields,
  schema: hmsAppSchema,
  load: loadHmsProfiles,
  protocol: (profile, context) => new HmsProtocol(profile, context),
});
