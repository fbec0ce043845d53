import { xiaomiAppSchema } from '../../../../config/makers/xiaomi-schema.ts';
import { defineMaker } from '../maker.ts';
import { loadXiaomiProfiles } from './xiaomi-credentials.ts';
import { xiaomiOverrideFields } from './xiaomi-message.ts';
import { globalVariant, XiaomiProtocol } from './xiaomi-protocol.ts';

/**
 * Xiaomi Mi Push: installations whose vendor is `mi` (as the hosted
 * service's SDK writes it) or `xiaomi`, through the mainland China service,
 * and `mi-intl` (the SDK's international registration) through the global
 * one; notification and pass-through (silent) messages; up to 1000 regIds a
 * request. Its `data` key is `mi`.
 */
export const xiaomiMaker = defineMaker({
  gateway: 'xiaomi',
  vendors: { mi: '', xiaomi: '', 'mi-intl': globalVariant },
  silent: true,
  overrideFields: xiaomiOverrideFields,
  schema: xiaomiAppSchema,
  load: loadXiaomiProfiles,
  protocol: (profile, context) => new XiaomiProtocol(profile, context),
});
