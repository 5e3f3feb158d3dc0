import { readFileSync } from 'fs';
import { join } from 'path';
import { PROMOTE_PER_CLAIM } from '../../lib/echomq.constants';
import { LUA_DIR } from '../../lib/scripts/lua-loader';

describe('the one-job claim\'s defaults', () => {
  it('the claim script takes as its promoteMax, when left out, what the client would have sent', () => {
    const source = readFileSync(join(LUA_DIR, 'claim-1.lua'), 'utf8');
    const declared = /^local PROMOTE_DEFAULT = (\d+)$/m.exec(source);
    expect(declared).not.toBeNull();
    expect(Number(declared![1])).toBe(PROMOTE_PER_CLAIM);
  });
});
