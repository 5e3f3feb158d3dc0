import { FUNCTIONS_ENV, ScriptPath } from '../../lib/scripts/script-runner';

/** Both ways a connection runs the scripts: the function library (FCALL) and EVALSHA. */
export const SCRIPT_PATHS: ScriptPath[] = ['fcall', 'evalsha'];

/**
 * Makes the connections whose scripts first run inside this describe block take `path` ('evalsha'
 * as on a server without FUNCTION). Call it before the block's fixtures, so its hook runs first.
 */
export function onScriptPath(path: ScriptPath): void {
  let was: string | undefined;
  beforeAll(() => {
    was = process.env[FUNCTIONS_ENV];
    if (path === 'evalsha') process.env[FUNCTIONS_ENV] = 'off';
    else delete process.env[FUNCTIONS_ENV];
  });
  afterAll(() => {
    if (was === undefined) delete process.env[FUNCTIONS_ENV];
    else process.env[FUNCTIONS_ENV] = was;
  });
}

/** How many times the server ran each script command (INFO commandstats), by command. */
export async function scriptCalls(client: { info(section: string): Promise<string> }): Promise<Record<'evalsha' | 'eval' | 'fcall' | 'fcall_ro', number>> {
  const stats = await client.info('commandstats');
  const calls = (c: string) => Number(new RegExp(`cmdstat_${c}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return { evalsha: calls('evalsha'), eval: calls('eval'), fcall: calls('fcall'), fcall_ro: calls('fcall_ro') };
}
