import { SetMetadata } from '@nestjs/common';
import { WEIGHTED_METADATA } from '../echomq.constants';

/**
 * Makes a consumer claim with `wclaim`: each turn serves up to the lane's weight in jobs, so lane
 * weights set with `LanesService.weight()` tilt its share. Requires `@LaneConsumer`.
 */
export function Weighted(): ClassDecorator {
  return SetMetadata(WEIGHTED_METADATA, true);
}
