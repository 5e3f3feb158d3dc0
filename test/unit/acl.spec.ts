import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { ECHOMQ_ACL_COMMANDS, ECHOMQ_FUNCTION_ACL_RULES, echoMqAclRules } from '../../lib/redis/acl';
import { LUA_DIR } from '../../lib/scripts/lua-loader';

/** Every Lua file, includes too. */
function luaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? luaFiles(join(dir, e.name)) : e.name.endsWith('.lua') ? [join(dir, e.name)] : []);
}

describe('the ACL rules of an EchoMQ user', () => {
  it('allow every command a script calls (Redis checks script calls against the ACL too)', () => {
    const called = new Set<string>();
    for (const file of luaFiles(LUA_DIR)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:rcall|redis\.p?call)\(\s*'([A-Za-z]+)'/g)) called.add(m[1].toLowerCase());
    }
    expect(called.size).toBeGreaterThan(10);
    const missing = [...called].filter((c) => !ECHOMQ_ACL_COMMANDS.includes(c));
    // A new command in a script must be added to lib/redis/acl.ts and the README's ACL line.
    expect(missing).toEqual([]);
  });

  it('are one line: the prefix\'s keys, its channels (waitFor), and only the listed commands', () => {
    expect(echoMqAclRules('jobs')).toMatch(/^resetkeys ~jobs:\* resetchannels &jobs:\* -@all \+evalsha \+eval /);
    expect(echoMqAclRules()).not.toMatch(/@read|@write|@all \+@|config/);
  });
});

describe('the README', () => {
  it('gives the ACL line the library asks for', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme).toContain(`ACL SETUSER echomq on >secret ${echoMqAclRules()}`);
  });

  it('names the rights of the function library, and the EVALSHA path without them', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme).toContain(`\`${ECHOMQ_FUNCTION_ACL_RULES}\``);
    expect(readme).toMatch(/Without them the scripts run by EVALSHA/);
  });
});
