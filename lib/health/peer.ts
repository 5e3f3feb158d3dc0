import { requireOptionalPeer } from '../optional-peer';

requireOptionalPeer('@nestjs/terminus', '@echomq/nestjs/health');
