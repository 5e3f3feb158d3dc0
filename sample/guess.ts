import { BadRequestException, PipeTransform } from '@nestjs/common';

/** The queue every guess goes to; each player has a lane of their own in it. */
export const GUESS_QUEUE = 'cm';

/** The emojis a secret code is made of. */
export const PALETTE: readonly string[] = ['🍎', '🍌', '🍇', '🍓', '🍒', '🍍'];

/** How many emojis a code has. */
export const CODE_LENGTH = 4;

/** One guess, as the queue carries it. */
export interface Guess {
  /** Who guessed; also the name of their lane. */
  player: string;
  /** The room the player plays in, when given: the lane's tenant, so a room's players share one turn. */
  room?: string;
  /** `CODE_LENGTH` emojis from the palette, e.g. "🍎🍌🍇🍓". */
  guess: string;
}

const LANE_NAME_MAX_BYTES = 200;
// eslint-disable-next-line no-control-regex
const NOT_IN_LANE_NAMES = /[{}\u0000-\u001f\u007f]/;

/**
 * Checks a player name against the rule for lane names (the player's lane is named after them),
 * so a bad name is a 400 here rather than an error from the queue.
 */
export function checkPlayer(player: unknown): string {
  if (typeof player !== 'string' || player.length === 0 || NOT_IN_LANE_NAMES.test(player)
      || Buffer.byteLength(player, 'utf8') > LANE_NAME_MAX_BYTES) {
    throw new BadRequestException(
      `"player" must be a non-empty string of at most ${LANE_NAME_MAX_BYTES} bytes without "{", "}" or control characters.`,
    );
  }
  return player;
}

/** Checks a room name: the room is its players' lanes' tenant, named by the same rule. */
export function checkRoom(room: unknown): string {
  if (typeof room !== 'string' || room.length === 0 || NOT_IN_LANE_NAMES.test(room) || Buffer.byteLength(room, 'utf8') > LANE_NAME_MAX_BYTES) {
    throw new BadRequestException(
      `"room" must be a non-empty string of at most ${LANE_NAME_MAX_BYTES} bytes without "{", "}" or control characters.`,
    );
  }
  return room;
}

/** Splits a guess into its emojis; null when it is not `CODE_LENGTH` emojis of the palette. */
export function emojisOf(guess: string): string[] | null {
  const emojis = Array.from(guess);
  return emojis.length === CODE_LENGTH && emojis.every((e) => PALETTE.includes(e)) ? emojis : null;
}

/** Validates the body of `POST /guesses`. */
export class ParseGuessPipe implements PipeTransform<unknown, Guess> {
  transform(body: unknown): Guess {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new BadRequestException('The body must be a JSON object: {"player": "...", "guess": "🍎🍌🍇🍓"}.');
    }
    const { player, guess, room } = body as Record<string, unknown>;
    checkPlayer(player);
    if (typeof guess !== 'string' || !emojisOf(guess)) {
      throw new BadRequestException(`"guess" must be ${CODE_LENGTH} emojis from ${PALETTE.join('')}, e.g. "🍎🍌🍇🍓".`);
    }
    if (room === undefined) return { player: player as string, guess };
    return { player: player as string, guess, room: checkRoom(room) };
  }
}

/** Validates a `:player` route parameter. */
export class ParsePlayerPipe implements PipeTransform<unknown, string> {
  transform(player: unknown): string {
    return checkPlayer(player);
  }
}
