import { ArgumentsHost, Catch, HttpException, HttpStatus } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { EchoMqError } from '../errors';

/**
 * The HTTP status of each error code. Codes of later versions are listed by name, so the table needs
 * no change when they arrive; a code not listed stays a 500.
 */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: HttpStatus.BAD_REQUEST,
  NOT_FOUND: HttpStatus.NOT_FOUND,
  NOT_EMPTY: HttpStatus.CONFLICT,
  LANE_FULL: HttpStatus.TOO_MANY_REQUESTS,
  TIMEOUT: HttpStatus.GATEWAY_TIMEOUT,
  UNAVAILABLE: HttpStatus.SERVICE_UNAVAILABLE,
  OUT_OF_MEMORY: HttpStatus.SERVICE_UNAVAILABLE,
  NOT_REPLICATED: HttpStatus.SERVICE_UNAVAILABLE,
  IDS_EXHAUSTED: HttpStatus.SERVICE_UNAVAILABLE,
};

/** The HTTP status an {@link EchoMqError} maps to: 400 for bad input, 504 for a timeout, 503 for a server in trouble, else 500. */
export function httpStatusOf(error: EchoMqError): number {
  return STATUS_BY_CODE[error.code] ?? HttpStatus.INTERNAL_SERVER_ERROR;
}

/**
 * Maps queue errors to HTTP answers, so bad input from a request is a 400 and not a 500:
 * `INVALID_ARGUMENT` → 400, `NOT_FOUND` → 404, `NOT_EMPTY` → 409, `LANE_FULL` → 429, `TIMEOUT` → 504,
 * `UNAVAILABLE`, `OUT_OF_MEMORY`, `NOT_REPLICATED` and `IDS_EXHAUSTED` → 503, anything else (a
 * misconfiguration, a refused command) stays a 500, as Nest answers it. The body is
 * `{ statusCode, message, code, argument? }`. Register it with
 * `{ provide: APP_FILTER, useClass: EchoMqErrorFilter }` or `app.useGlobalFilters(new EchoMqErrorFilter(httpAdapter))`.
 */
@Catch(EchoMqError)
export class EchoMqErrorFilter extends BaseExceptionFilter {
  override catch(error: EchoMqError, host: ArgumentsHost): void {
    const status = httpStatusOf(error);
    if (status === HttpStatus.INTERNAL_SERVER_ERROR) return super.catch(error, host);
    const body: Record<string, unknown> = { statusCode: status, message: error.message, code: error.code };
    if (error.argument !== undefined) body.argument = error.argument;
    super.catch(new HttpException(body, status, { cause: error }), host);
  }
}
