import { requireOptionalPeer } from '../optional-peer';

requireOptionalPeer('prom-client', '@echomq/nestjs/metrics');
