import { existsSync } from 'fs';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); CHROMIUM_BIN overrides. Never a downloaded browser. */
export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run',
];

/** Starts the system Chromium through playwright-core; fails with advice when it is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM_BIN.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/**
 * One Chromium for a describe block: launched before its tests and closed after them; `open` loads a
 * dashboard page (its errors and dialogs watched) and waits for its first frame. The caller closes the page.
 */
export function dashboardBrowser(): {
  open(url: string, width?: number): Promise<{ page: Page; trouble: PageTrouble; ms: number }>;
  newPage(): Promise<Page>;
} {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    newPage: () => browser!.newPage({ viewport: { width: 1280, height: 900 } }),
    async open(url, width = 1280) {
      const page = await browser!.newPage({ viewport: { width, height: 900 } });
      const trouble = watchPage(page);
      const started = Date.now();
      await page.goto(url);
      await page.waitForSelector('body[data-frame-at]', { timeout: 10_000 });
      return { page, trouble, ms: Date.now() - started };
    },
  };
}

/** Everything a page reported as an error: console errors, uncaught exceptions, dialogs it opened. */
export interface PageTrouble {
  errors: string[];
  dialogs: string[];
}

/** Starts recording a page's errors and dialogs (a dialog is dismissed and recorded). */
export function watchPage(page: Page): PageTrouble {
  const trouble: PageTrouble = { errors: [], dialogs: [] };
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') trouble.errors.push(m.text());
  });
  page.on('pageerror', (e) => trouble.errors.push(String(e)));
  page.on('dialog', (d) => {
    trouble.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return trouble;
}
