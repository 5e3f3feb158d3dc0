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
