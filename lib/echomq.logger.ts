import { Logger, LoggerService } from '@nestjs/common';
import type { ResolvedEchoMqOptions } from './interfaces';

/** @internal The logger of the library's parts: the user's, or Nest's under the 'EchoMq' context. */
export function echoMqLogger(options: Pick<ResolvedEchoMqOptions, 'logger'>): LoggerService {
  return options.logger ?? new Logger('EchoMq');
}
