import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (no browser download at run time; .ci/run installs the
 * chromium package), as the browser suites use it.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// The flags that work on these machines: no sandbox as root, and no background traffic to Google's
// hosts, which the closed network refuses.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium; a missing one fails the suite, which never skips. */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: install Debian's package (apt-get install -y chromium; ` +
        '.ci/run does this) or point CHROMIUM_PATH at a Chromium binary. This test does not skip.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
