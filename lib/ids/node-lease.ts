import type { LoggerService } from '@nestjs/common';
import { randomBytes } from 'crypto';
import { settledBy } from '../redis/call-deadline';
import type { LaneScripts } from '../scripts/lane-scripts';
import { jobIdNode, setJobIdClockOffset, setJobIdNode } from './job-id';

/** How long a number stays held without renewal: a process stalled this long may lose it. */
export const NODE_LEASE_MS = 10 * 60_000;

/** A round trip longer than this says too little about the server's clock to set the mint clock by. */
const CLOCK_TRIP_MAX_MS = 1_000;

/**
 * A clock off by less than this (a host kept in step by NTP, or the server's own machine) is taken as the
 * server's: ids are minted on it as they are, and a submit's mint time stays between the caller's
 * `Date.now()` before and after it.
 */
const CLOCK_SKEW_MIN_MS = 25;

/** How long the shutdown waits for the server to take the number back. */
const RELEASE_WAIT_MS = 1_000;

const every = (ms: number): string => (ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1_000)} s`);

/**
 * @internal This process's job-id node number, held on the server as a lease (lua/nodeLease-1.lua)
 * while the module runs: no other live process is handed the same number, so no two mint the same
 * id, however many processes started before. Renewed well within the lease; given back at shutdown.
 * Each take and renewal also reads the server's clock, and ids are minted on it (setJobIdClockOffset).
 */
export class JobIdNodeLease {
  private readonly token = randomBytes(12).toString('hex');
  private held?: number;
  /** True while all numbers were held and this process mints with a shared one. */
  private sharing = false;
  /** Set by release: a take still on the wire then gives its number straight back. */
  private released = false;
  private releasing?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly scripts: LaneScripts,
    private readonly key: string,
    private readonly logger: LoggerService,
    private readonly leaseMs = NODE_LEASE_MS,
  ) {}

  /** Renewals come ten times a lease, so a few failed ones in a row still keep the number. */
  private get renewEveryMs(): number {
    return Math.max(Math.floor(this.leaseMs / 10), 1);
  }

  /** The number held, undefined while none is. */
  get node(): number | undefined {
    return this.held;
  }

  /**
   * Takes a free number and mints with it. When all 1,024 are held it mints with a shared one, says
   * so once, and asks again at every renewal until a number comes free.
   */
  async take(): Promise<void> {
    const n = await this.lease('take');
    if (this.released) {
      if (n >= 0) await this.scripts.nodeLease(this.key, 'release', this.token, this.leaseMs, n).catch(() => undefined);
      return;
    }
    if (n < 0) {
      if (!this.sharing) {
        this.sharing = true;
        setJobIdNode(-1 - n);
        this.logger.warn(`All 1,024 job-id node numbers are held by live processes (${this.key}); this one mints with ${jobIdNode()}, which another process holds too, and asks again every ${every(this.renewEveryMs)}. Ids it mints itself are still never lost (a colliding submit mints again), but an id handed to submit as opts.jobId may be another process's.`);
      }
    } else {
      this.held = n;
      setJobIdNode(n);
      if (this.sharing) this.logger.log(`A job-id node number came free (${this.key}); this process now mints with ${n}, its own.`);
      this.sharing = false;
    }
    if (!this.timer) {
      this.timer = setInterval(() => void this.renew(), this.renewEveryMs);
      this.timer.unref();
    }
  }

  /** Gives the number back, so that a process started next can have it. */
  /** Gives the number back; a second call meets the first's (see ClaimLoopOrchestrator's shutdown). */
  release(): Promise<void> {
    return (this.releasing ??= this.releaseOnce());
  }

  private async releaseOnce(): Promise<void> {
    this.released = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.sharing = false;
    const n = this.held;
    this.held = undefined;
    if (n === undefined) return;
    // NOTE: bounded (the server may be down at shutdown); unanswered or refused, the lease ends on
    // its own, leaseMs after its last renewal.
    await settledBy(this.scripts.nodeLease(this.key, 'release', this.token, this.leaseMs, n), Date.now() + RELEASE_WAIT_MS);
  }

  /** One call of the lease script, the mint clock set from the server's clock it read (see setJobIdClockOffset). */
  private async lease(action: 'take' | 'renew', n?: number): Promise<number> {
    const sent = Date.now();
    const { result, serverMs } = await this.scripts.nodeLease(this.key, action, this.token, this.leaseMs, n);
    const back = Date.now();
    if (back - sent <= CLOCK_TRIP_MAX_MS && serverMs > 0) {
      // NOTE: the script ran before the reply came back, so serverMs - back is at most the true offset:
      // a clock it corrects never mints ahead of the server's (a job submitted with delayMs d is due no
      // sooner than d after its mint time), and lags it by at most the round trip.
      const offset = Math.floor(serverMs - back);
      setJobIdClockOffset(Math.abs(offset) < CLOCK_SKEW_MIN_MS ? 0 : offset);
    }
    return result;
  }

  private async renew(): Promise<void> {
    const n = this.held;
    try {
      if (n === undefined) {
        if (this.sharing) await this.take();
        return;
      }
      if (await this.lease('renew', n)) return;
      // NOTE: the lease ran out (this process stalled for longer than it) and may be another's now.
      this.held = undefined;
      await this.take();
      this.logger.warn(`The job-id node lease ${n} ran out before it was renewed; this process now mints with ${jobIdNode()}.`);
    } catch {
      // NOTE: a connection error; the next renewal tries again, well within the lease.
    }
  }
}
