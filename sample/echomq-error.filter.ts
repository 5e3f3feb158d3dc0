import { ArgumentsHost, BadRequestException, Catch, ServiceUnavailableException } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { EchoMqError } from '@echomq/nestjs';

/** Maps queue errors to HTTP: bad input is a 400, a full server a 503, anything else stays a 500. */
@Catch(EchoMqError)
export class EchoMqErrorFilter extends BaseExceptionFilter {
  override catch(error: EchoMqError, host: ArgumentsHost): void {
    if (error.code === 'INVALID_ARGUMENT') return super.catch(new BadRequestException(error.message), host);
    if (error.code === 'OUT_OF_MEMORY') return super.catch(new ServiceUnavailableException(error.message), host);
    super.catch(error, host);
  }
}
