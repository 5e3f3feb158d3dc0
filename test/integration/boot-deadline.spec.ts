import { resolveEchoMqOptions } from '../../lib/echomq.options';
import { LanesService } from '../../lib/lanes.service';
import { EchoMqConnections } from '../../lib/redis/echomq-connections';
import { CapturingLogger } from '../support/nest';
import { freePort } from '../support/redis-server';

/**
 * A boot while the server is down waits one deadline: the command connection's first outcome and the
 * job-id node lease share it, so the boot is not held twice as long when the two run one after the other.
 */
describe('boot with the server down', () => {
  it('waits one 3 s deadline for the connection and the node lease together, even one after the other', async () => {
    const port = await freePort();   // nothing listens there
    const logger = new CapturingLogger();
    const options = resolveEchoMqOptions({ connection: `redis://127.0.0.1:${port}`, logger });
    const connections = new EchoMqConnections(options);
    const lanes = new LanesService(connections.client, options, connections);
    const started = Date.now();
    try {
      await connections.onModuleInit();
      await lanes.onModuleInit();
      const took = Date.now() - started;
      // NOTE: each waited 3 s of its own before: 6 s in a row.
      expect(took).toBeGreaterThanOrEqual(2_900);
      expect(took).toBeLessThan(4_500);
      expect(logger.text('warn')).toMatch(/Could not take a job-id node number from the server; keeping a random one/);
    } finally {
      await lanes.beforeApplicationShutdown();
      await connections.onApplicationShutdown();
    }
  }, 30_000);
});
