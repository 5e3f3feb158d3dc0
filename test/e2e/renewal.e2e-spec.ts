import { Injectable } from '@nestjs/common';
import { LaneConsumer, LanesService } from '../../lib';
import { bootApp, gate, nestFixture, until } from '../support/nest';

const QUEUE = 'e2e-renewal';
const hold = gate();
let started = 0;

@LaneConsumer(QUEUE, { concurrency: 5, leaseMs: 300 })
@Injectable()
class SlowWorker {
  async handle(): Promise<void> {
    started += 1;
    await hold.promise;
  }
}

describe('lease renewal', () => {
  const fixture = nestFixture();

  it('a loop holding 5 jobs renews them all with one extendMany per tick, and they outlive the lease', async () => {
    const { app, logger } = await bootApp(fixture.server.url, [SlowWorker]);
    fixture.apps.push(app);
    const lanes = app.get(LanesService);
    const renewals: number[] = [];
    const many = jest.spyOn(lanes, 'extendMany').mockImplementation(function (this: LanesService, ...args) {
      renewals.push(args[1].length);
      return LanesService.prototype.extendMany.apply(this, args);
    });
    const single = jest.spyOn(lanes, 'extendUntil');
    await lanes.submitMany(QUEUE, Array.from({ length: 5 }, (_, i) => ({ group: `g${i}`, payload: i })));
    await until(() => started === 5, 5_000, 'five running handlers');
    // Held for three leases: only renewals keep them.
    await until(() => renewals.filter((n) => n === 5).length >= 9, 5_000, 'nine renewal ticks');
    hold.open();
    await until(async () => (await lanes.stats(QUEUE)).totals.completed === 5, 5_000, 'five completions');
    expect(single).not.toHaveBeenCalled();
    expect(logger.text('warn')).not.toMatch(/lost the lease/);
    many.mockRestore();
  });
});
