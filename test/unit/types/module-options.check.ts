// Compiled by test/unit/lane-queue-types.spec.ts (never run) under exactOptionalPropertyTypes: the README's
// module options, as a strict project writes them, compile without a cast.
import { EchoMqModule, type EchoMqModuleOptions } from '../../../lib';

export const fromEnv: EchoMqModuleOptions = { connection: process.env.REDIS_URL, prefix: 'emq' };
export const root = EchoMqModule.forRoot({ connection: process.env.REDIS_URL, shutdownTimeoutMs: 10_000 });
export const rootAsync = EchoMqModule.forRootAsync({ useFactory: async () => ({ connection: process.env.REDIS_URL }) });
