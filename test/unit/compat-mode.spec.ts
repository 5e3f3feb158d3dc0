import { resolveEchoMqOptions } from '../../lib/echomq.options';
import { loadScripts } from '../../lib/scripts/lua-loader';

describe("compat: 'echomq' (the scripts' compat variants and the option)", () => {
  const scripts = loadScripts();

  it('each script has a compat variant that differs from it in the one switch line, only where the switch is included', () => {
    const flipped = scripts.filter((s) => s.compatLua !== s.lua).map((s) => s.name).sort();
    for (const s of scripts) {
      const on = (s.compatLua.match(/^local COMPAT = true$/gm) ?? []).length;
      const off = (s.lua.match(/^local COMPAT = false$/gm) ?? []).length;
      expect({ name: s.name, on, off }).toEqual({ name: s.name, on: off, off: flipped.includes(s.name) ? 1 : 0 });
      expect(s.compatLua.replace(/^local COMPAT = true$/m, 'local COMPAT = false')).toBe(s.lua);
    }
    // Every script that can put a lane on the ring, read membership, or meet a flat job has the switch.
    for (const name of ['submit', 'submitMany', 'claim', 'wclaim', 'wclaimMany', 'complete', 'completeMany', 'fail', 'reap',
      'release', 'retryDead', 'promote', 'pause', 'resume', 'limit', 'rate', 'buryJobs', 'laneInfo', 'lanes']) {
      expect({ name, flipped: flipped.includes(name) }).toEqual({ name, flipped: true });
    }
  });

  it('the option is off by default and takes only echomq', () => {
    expect(resolveEchoMqOptions({}).compat).toBeUndefined();
    expect(resolveEchoMqOptions({ compat: 'echomq' }).compat).toBe('echomq');
    expect(() => resolveEchoMqOptions({ compat: 'on' as never })).toThrow(/"compat"/);
  });
});
