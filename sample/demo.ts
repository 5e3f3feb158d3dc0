import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomInt } from 'crypto';
import { createServer } from 'net';
import { setTimeout as sleep } from 'timers/promises';
import { LanesService, SubmitItem } from '@echomq/nestjs';
import { AppModule } from './app.module';
import { dashboardLink } from './dashboard-token.guard';
import { CODE_LENGTH, Guess, GUESS_QUEUE, PALETTE } from './guess';
import { ProgressBars } from './progress';
import { ScoreService } from './score.service';

/**
 * The demo (npm run demo): one player floods the game with guesses, then a few players send a
 * handful each. Run once with a lane per player and once with every guess in one lane (a plain
 * FIFO line), and compare how long the light players wait for their guesses to be scored.
 */

const HEAVY = 'masher';
const FLOOD = 1_000;
const LIGHT = ['ana', 'ben', 'chloe', 'dev', 'eli'];
const EACH = 5;
const TOTAL = FLOOD + LIGHT.length * EACH;
const ONE_LINE = 'everyone';
const out = (line = ''): void => void process.stdout.write(`${line}\n`);

interface Run {
  /** ms from each player's first submit to their last guess scored. */
  waits: Map<string, number>;
  /** ms from the flood's submit to the last guess scored. */
  drainMs: number;
  /** Where each light player's last guess stands in submit order (1-based), i.e. its FIFO rank. */
  ranks: Map<string, number>;
}

const randomGuess = (): string => Array.from({ length: CODE_LENGTH }, () => PALETTE[randomInt(PALETTE.length)]).join('');

async function play(app: INestApplication, title: string, laneOf: (player: string) => string): Promise<Run> {
  const lanes = app.get(LanesService);
  const scores = app.get(ScoreService);
  scores.reset();
  const totals = new Map([[HEAVY, FLOOD], ...LIGHT.map((p): [string, number] => [p, EACH])]);
  const bars = new ProgressBars(title, totals);
  const scored = () => new Map(scores.board().players.map((p) => [p.player, p.guesses]));
  const start = Date.now();
  const ticker = setInterval(() => bars.draw(scored(), Date.now() - start), 200);

  const flood: SubmitItem<Guess>[] = Array.from({ length: FLOOD }, () => ({
    group: laneOf(HEAVY), payload: { player: HEAVY, guess: randomGuess() },
  }));
  await lanes.submitMany(GUESS_QUEUE, flood);
  const firstSubmit = new Map<string, number>();
  const ranks = new Map<string, number>();
  let submitted = FLOOD;
  await Promise.all(LIGHT.map(async (player) => {
    firstSubmit.set(player, Date.now());
    for (let i = 0; i < EACH; i++) {
      await lanes.submit(GUESS_QUEUE, laneOf(player), { player, guess: randomGuess() });
      // NOTE: one connection answers in command order, so this counts the server's admit order.
      ranks.set(player, ++submitted);
    }
  }));

  const deadline = Date.now() + 60_000;
  while (scores.board().guesses < TOTAL || (await lanes.lanes(GUESS_QUEUE)).some((l) => l.pending + l.active > 0)) {
    if (Date.now() > deadline) throw new Error(`only ${scores.board().guesses} of ${TOTAL} guesses scored in 60 s`);
    await sleep(20);
  }
  clearInterval(ticker);
  bars.draw(scored(), Date.now() - start);

  const board = scores.board().players;
  const lastScored = (player: string) => board.find((p) => p.player === player)?.lastScoredAt ?? NaN;
  const waits = new Map(LIGHT.map((p) => [p, lastScored(p) - firstSubmit.get(p)!]));
  return { waits, ranks, drainMs: Math.max(...board.map((p) => p.lastScoredAt ?? 0)) - start };
}

/** Scores as many guesses as a run, unmeasured, so neither run pays for a cold start. */
async function warmUp(app: INestApplication): Promise<void> {
  const lanes = app.get(LanesService);
  const scores = app.get(ScoreService);
  const items = Array.from({ length: TOTAL }, (_, i) => ({ group: `warm-up-${i % 6}`, payload: { player: 'warm-up', guess: randomGuess() } }));
  await lanes.submitMany(GUESS_QUEUE, items);
  const deadline = Date.now() + 30_000;
  while ((scores.board().players.find((p) => p.player === 'warm-up')?.guesses ?? 0) < items.length) {
    if (Date.now() > deadline) throw new Error('the warm-up guesses were not scored in 30 s');
    await sleep(20);
  }
}

function summary(fair: Run, fifo: Run, costMs: number): void {
  const perGuess = fair.drainMs / TOTAL;
  const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`.padStart(10);
  out();
  out(`Wait of each light player, from their first submit to their last guess scored:`);
  out(`  player   ${'fair lanes'.padStart(10)}  ${'FIFO line'.padStart(10)}  ${'FIFO est.'.padStart(10)}`);
  for (const player of LIGHT) {
    const a = fair.waits.get(player)!;
    const b = fifo.waits.get(player)!;
    const estimate = fair.ranks.get(player)! * perGuess;
    out(`  ${player.padEnd(7)}  ${ms(a)}  ${ms(b)}  ${ms(estimate)}   ${(b / Math.max(a, 1)).toFixed(0)}x sooner with fair lanes`);
  }
  out(`  (FIFO est.: the rank of their last guess in one line, 1,000 + its place, x ${perGuess.toFixed(2)} ms a guess as measured)`);
  out(`All ${TOTAL.toLocaleString('en-US')} guesses were scored in ${ms(fair.drainMs).trim()} with fair lanes and ${ms(fifo.drainMs).trim()} in one line:`);
  out(`the same work (${costMs} ms a guess, 4 at a time) in another order: the flood waits behind the handfuls, not the other way round.`);
}

/** The rooms part: one room of CROWD players flooding beside one lone player in a room of their own. */
const CROWD = 20;
const CROWD_EACH = 50;
const LONE_EACH = 50;

/**
 * Floods room "crowd" (CROWD players, CROWD_EACH guesses each) beside room "lone" (one player,
 * LONE_EACH guesses), with the rooms as tenants or not, and returns each room's share of the guesses
 * scored until the lone player's last one is.
 */
async function rooms(app: INestApplication, tag: string, asTenants: boolean): Promise<{ crowd: number; lone: number }> {
  const lanes = app.get(LanesService);
  const scores = app.get(ScoreService);
  scores.reset();
  const opts = (room: string) => (asTenants ? { tenant: `${room}-${tag}` } : undefined);
  const items: SubmitItem<Guess>[] = [];
  for (let i = 0; i < CROWD_EACH; i++) {
    for (let p = 0; p < CROWD; p++) {
      const player = `crowd-${p}-${tag}`;
      items.push({ group: player, payload: { player, guess: randomGuess() }, opts: opts('crowd') });
    }
  }
  const lone = `lone-${tag}`;
  for (let i = 0; i < LONE_EACH; i++) items.push({ group: lone, payload: { player: lone, guess: randomGuess() }, opts: opts('lone') });
  await lanes.submitMany(GUESS_QUEUE, items);
  const deadline = Date.now() + 120_000;
  const scoredOf = (player: string) => scores.board().players.find((p) => p.player === player)?.guesses ?? 0;
  while (scoredOf(lone) < LONE_EACH) {
    if (Date.now() > deadline) throw new Error(`the lone player's guesses were not scored in 120 s`);
    await sleep(5);
  }
  const crowd = scores.board().players.filter((p) => p.player.startsWith('crowd-')).reduce((n, p) => n + p.guesses, 0);
  const total = crowd + LONE_EACH;
  while (scores.board().guesses < items.length) {
    if (Date.now() > deadline) throw new Error('the rooms part did not drain in 120 s');
    await sleep(20);
  }
  return { crowd: crowd / total, lone: LONE_EACH / total };
}

/** PORT (default 3000) when it is free, else any free port: the demo must run beside another app. */
function freePortFor(wanted: number): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(0));
    probe.listen(wanted, () => probe.close(() => resolve(wanted)));
  });
}

async function main(): Promise<void> {
  process.env.SCORING_COST_MS ??= '2';
  const costMs = Number(process.env.SCORING_COST_MS);
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(await freePortFor(Number(process.env.PORT ?? 3000)));
  const { port } = app.getHttpServer().address() as { port: number };
  // NOTE: the link is shown only when the page stays up to be opened (`--serve`): without it the
  // demo ends a few seconds after its run, and a link printed then would lead nowhere.
  const serve = process.argv.includes('--serve');
  const link = dashboardLink(`http://localhost:${port}`);
  try {
    if (serve) out(`Live dashboard while the demo runs: ${link}`);
    out(`Codemojex demo: "${HEAVY}" floods the game with ${FLOOD.toLocaleString('en-US')} guesses, then ${LIGHT.length} players send ${EACH} guesses each.`);
    out(`(warming up first: ${TOTAL.toLocaleString('en-US')} guesses scored unmeasured)`);
    await warmUp(app);
    out();
    out('1) Fair lanes: each player has a lane of their own, and the queue serves the lanes in turn.');
    const fair = await play(app, 'fair lanes', (player) => player);
    out();
    out(`2) The same guesses in one FIFO line: a single lane ("${ONE_LINE}"), served first come, first served.`);
    const fifo = await play(app, 'one line', () => ONE_LINE);
    summary(fair, fifo, costMs);
    out();
    out(`3) Rooms: room "crowd" floods with ${CROWD} players (${CROWD_EACH} guesses each) beside room "lone", one player with ${LONE_EACH}.`);
    const byRoom = await rooms(app, 'rooms', true);
    const byLane = await rooms(app, 'lanes', false);
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
    out(`Share of the guesses scored until the lone player's last one is:`);
    out(`  ${'room'.padEnd(7)}  ${'rooms as tenants'.padStart(16)}  ${'a lane per player only'.padStart(22)}`);
    out(`  ${'crowd'.padEnd(7)}  ${pct(byRoom.crowd).padStart(16)}  ${pct(byLane.crowd).padStart(22)}`);
    out(`  ${'lone'.padEnd(7)}  ${pct(byRoom.lone).padStart(16)}  ${pct(byLane.lone).padStart(22)}`);
    out(`With rooms as tenants a room's ${CROWD} players share one turn of the ring, so the lone player's room gets half.`);
    out();
    if (serve) {
      out(`The dashboard stays up at ${link} (Ctrl-C to stop).`);
      // NOTE: Ctrl-C ends it through the shutdown hooks (enableShutdownHooks above), which close the app.
      await new Promise<never>(() => undefined);
    } else {
      out('`npm run demo -- --serve` keeps the app and its live dashboard up until Ctrl-C.');
    }
  } finally {
    await app.close();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`demo failed: ${err.stack ?? err.message}\n`);
  process.exitCode = 1;
});
