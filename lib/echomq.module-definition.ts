import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { EchoMqModuleOptions } from './interfaces';

/** @internal Token of the options exactly as the user gave them (resolved into ECHOMQ_MODULE_OPTIONS). */
export const ECHOMQ_RAW_OPTIONS = 'ECHOMQ:RAW_OPTIONS';

export const { ConfigurableModuleClass: EchoMqConfigurableModule } = new ConfigurableModuleBuilder<EchoMqModuleOptions>({ optionsInjectionToken: ECHOMQ_RAW_OPTIONS })
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: true }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();
