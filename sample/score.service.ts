import { Injectable } from '@nestjs/common';
import { randomInt } from 'crypto';
import { CODE_LENGTH, emojisOf, PALETTE } from './guess';

/** One player's line on the scoreboard. */
export interface PlayerScore {
  player: string;
  /** Guesses scored so far. */
  guesses: number;
  points: number;
  /** Rounds this player won by guessing the whole code. */
  solved: number;
  /** When their latest guess was scored (ms since epoch), null before the first. */
  lastScoredAt: number | null;
}

/** What `GET /scores` shows. */
export interface Scoreboard {
  round: number;
  /** Guesses scored in this game, all players together. */
  guesses: number;
  /** Best first. */
  players: PlayerScore[];
}

/** The feedback on one guess, Mastermind style. */
export interface GuessResult {
  /** Right emoji in the right place. */
  hits: number;
  /** Right emoji in the wrong place. */
  near: number;
  points: number;
  solved: boolean;
}

const SOLVE_BONUS = 10;

/** The game: a secret emoji code per round and an in-memory scoreboard. */
@Injectable()
export class ScoreService {
  private round = 1;
  private secret = ScoreService.newSecret();
  private guesses = 0;
  private readonly players = new Map<string, PlayerScore>();

  /** Scores a guess against this round's secret; guessing it whole wins the round and starts the next. */
  score(player: string, guess: string): GuessResult {
    const emojis = emojisOf(guess);
    if (!emojis) throw new Error(`Not a guess: ${JSON.stringify(guess)}`);
    const hits = emojis.filter((e, i) => e === this.secret[i]).length;
    const common = PALETTE.reduce((n, e) => n + Math.min(count(emojis, e), count(this.secret, e)), 0);
    const solved = hits === CODE_LENGTH;
    const points = 2 * hits + (common - hits) + (solved ? SOLVE_BONUS : 0);

    const line = this.players.get(player) ?? { player, guesses: 0, points: 0, solved: 0, lastScoredAt: null };
    line.guesses += 1;
    line.points += points;
    line.lastScoredAt = Date.now();
    if (solved) {
      line.solved += 1;
      this.round += 1;
      this.secret = ScoreService.newSecret();
    }
    this.players.set(player, line);
    this.guesses += 1;
    return { hits, near: common - hits, points, solved };
  }

  /** The scoreboard, best player first. */
  board(): Scoreboard {
    const players = [...this.players.values()]
      .map((p) => ({ ...p }))
      .sort((a, b) => b.points - a.points || a.player.localeCompare(b.player));
    return { round: this.round, guesses: this.guesses, players };
  }

  /** Starts a new game: a new secret and an empty scoreboard. */
  reset(): void {
    this.round = 1;
    this.secret = ScoreService.newSecret();
    this.guesses = 0;
    this.players.clear();
  }

  private static newSecret(): string[] {
    return Array.from({ length: CODE_LENGTH }, () => PALETTE[randomInt(PALETTE.length)]);
  }
}

function count(list: readonly string[], item: string): number {
  return list.filter((x) => x === item).length;
}
