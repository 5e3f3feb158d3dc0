import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { EchoMqHealthIndicator } from '@echomq/nestjs/health';

/** `GET /health`: 200 while the queue server answers and the worker claims, 503 with the reason otherwise. */
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthCheckService, private readonly echomq: EchoMqHealthIndicator) {}

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.echomq.isHealthy()]);
  }
}
