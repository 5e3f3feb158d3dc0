import { readdirSync, readFileSync } from 'fs';
import { extname, join } from 'path';
import { EchoMqError } from '../index';
import { missingAssets } from './dashboard.messages';

/**
 * The page's Content-Security-Policy: scripts and styles only from the page's own files (no inline
 * script, no CDN), data only from its own origin, and Trusted Types enforced so that no script of
 * the page can assign HTML to the DOM (every user-chosen string is set as text).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** @internal One file of the page, read once at start-up. */
export interface DashboardAsset {
  body: Buffer;
  type: string;
}

/**
 * @internal The page's static files. They ship in the package beside this file (`ui/`, copied to
 * `dist/dashboard/ui/` by `npm run build`), so they are found relative to it in both the sources
 * and the build, and read into memory once.
 */
export class DashboardAssets {
  private readonly files = new Map<string, DashboardAsset>();

  /** @param dir where the files are (tests point it elsewhere). */
  constructor(readonly dir = join(__dirname, 'ui')) {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      throw new EchoMqError(missingAssets(this.dir), { code: 'MISCONFIGURED', cause: err });
    }
    for (const name of names) {
      const type = TYPES[extname(name)];
      if (type && /^[a-z0-9-]+\.[a-z]+$/.test(name)) this.files.set(name, { body: readFileSync(join(this.dir, name)), type });
    }
    if (!this.files.has('index.html')) throw new EchoMqError(missingAssets(this.dir), { code: 'MISCONFIGURED' });
  }

  /** A file by name (only files of the folder itself, by an exact name). */
  get(name: string): DashboardAsset | undefined {
    return this.files.get(name);
  }

  /** Bytes the page ships: every file of the folder. */
  get totalBytes(): number {
    let n = 0;
    for (const f of this.files.values()) n += f.body.length;
    return n;
  }
}
