import { Controller, Get, Header } from '@nestjs/common';
import { register } from 'prom-client';

/** `GET /metrics`: the Prometheus text of prom-client's global registry, where EchoMqMetricsModule registers. */
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('content-type', register.contentType)
  metrics(): Promise<string> {
    return register.metrics();
  }
}
