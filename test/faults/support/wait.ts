/** Polls `check` until it returns a truthy value or the deadline passes; returns that value. */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what} (last: ${detail})`);
    }
    await pause(intervalMs);
  }
}

/** A timer, for pacing work and retry back-off (never to wait for a condition: use waitFor). */
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Prints one result line of a fault test. */
export function report(line: string): void {
  process.stdout.write(`[faults] ${line}\n`);
}
