import { Controller, Get, INestApplication, Param } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { EchoMqError, EchoMqErrorCode, EchoMqErrorFilter, httpStatusOf } from '../../lib';

/** EchoMqErrorFilter: each error code's HTTP answer, in a real Nest HTTP app (no Redis needed). */
@Controller()
class ThrowingController {
  @Get('code/:code')
  fail(@Param('code') code: string): never {
    throw new EchoMqError(`failed with ${code}`, { code: code as EchoMqErrorCode, argument: code === 'INVALID_ARGUMENT' ? 'opts.delayMs' : undefined });
  }

  @Get('plain')
  plain(): never {
    throw new Error('not ours');
  }
}

describe('EchoMqErrorFilter', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const mod = await Test.createTestingModule({
      controllers: [ThrowingController],
      providers: [{ provide: APP_FILTER, useClass: EchoMqErrorFilter }],
    }).compile();
    app = mod.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(async () => {
    await app.close();
  });

  it.each([
    ['INVALID_ARGUMENT', 400], ['TIMEOUT', 504], ['OUT_OF_MEMORY', 503], ['NOT_REPLICATED', 503], ['IDS_EXHAUSTED', 503],
    ['NOT_FOUND', 404], ['NOT_EMPTY', 409], ['LANE_FULL', 429], ['UNAVAILABLE', 503],
  ])('answers %s with %i, the message, the code and the argument', async (code, status) => {
    const res = await request(app.getHttpServer()).get(`/code/${code}`).expect(status);
    expect(res.body).toMatchObject({ statusCode: status, message: `failed with ${code}`, code });
    if (code === 'INVALID_ARGUMENT') expect(res.body.argument).toBe('opts.delayMs');
    expect(httpStatusOf(new EchoMqError('x', { code: code as EchoMqErrorCode }))).toBe(status);
  });

  it.each(['MISCONFIGURED', 'SERVER_REJECTED'])('leaves %s to Nest: a 500 that shows nothing of it', async (code) => {
    const res = await request(app.getHttpServer()).get(`/code/${code}`).expect(500);
    expect(res.body).toEqual({ statusCode: 500, message: 'Internal server error' });
  });

  it('catches only EchoMqError', async () => {
    await request(app.getHttpServer()).get('/plain').expect(500);
  });
});
