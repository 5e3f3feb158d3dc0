import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { dashboardLink } from './dashboard-token.guard';

async function bootstrap(): Promise<void> {
  const logger = new Logger('Codemojex');
  const app = await NestFactory.create(AppModule);
  // NOTE: on SIGINT/SIGTERM the claim loops stop, in-flight guesses finish, then Redis is quit.
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port);
  logger.log(`Listening on http://localhost:${port}`);
  logger.log(`Dashboard: ${dashboardLink(`http://localhost:${port}`)}`);
  logger.log(`Try: curl -X POST localhost:${port}/guesses -H 'content-type: application/json' -d '{"player":"ana","guess":"🍎🍌🍇🍓"}'`);
}

bootstrap().catch((err: Error) => {
  new Logger('Codemojex').error(`Could not start: ${err.message}`, err.stack);
  process.exit(1);
});
