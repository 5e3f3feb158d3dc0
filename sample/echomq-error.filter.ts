import { ArgumentsHost, BadRequestException, Catch } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { EchoMqError } from '@echomq/nestjs';

/** Answers 400 when the queue rejects an argument (bad input); any other queue error stays a 500. */
@Catch(EchoMqError)
export class EchoMqErrorFilter extends BaseExceptionFilter {
  override catch(error: EchoMqError, host: ArgumentsHost): void {
    super.catch(error.argument ? new BadRequestException(error.message) : error, host);
  }
}
