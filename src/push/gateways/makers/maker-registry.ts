import type { MakerName } from '../delivery.ts';
import { hmsMaker } from './hms/hms-maker.ts';
import { honorMaker } from './honor/honor-maker.ts';
import { meizuMaker } from './meizu/meizu-maker.ts';
import type { Maker } from './maker.ts';
import { oppoMaker } from './oppo/oppo-maker.ts';
import { vivoMaker } from './vivo/vivo-maker.ts';
import { xiaomiMaker } from './xiaomi/xiaomi-maker.ts';

/**
 * The phone makers Herald sends through: one line each
 * (docs/push-engine.md, "Adding a maker"). An installation whose `vendor`
 * names a maker missing here counts `UnsupportedVendor`.
 */
export const makers: readonly Maker[] = [hmsMaker, xiaomiMaker, honorMaker, oppoMaker, meizuMaker, vivoMaker];

const byName = new Map<MakerName, Maker>(makers.map((maker) => [maker.gateway, maker]));

/** The registered maker of `gateway`, undefined when none is. */
export function makerOf(gateway: MakerName): Maker | undefined {
  return byName.get(gateway);
}
