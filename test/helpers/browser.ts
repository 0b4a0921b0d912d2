import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/**
 * A `skip` reason for browser tests on a developer machine without Debian's Chromium. `.ci/run`
 * installs Chromium and sets CRADLE_REQUIRE_CHROMIUM=1, so there a missing browser fails the run
 * instead of skipping a third of the UI coverage unnoticed.
 */
export const noChromium: string | false =
  existsSync(CHROMIUM) || process.env.CRADLE_REQUIRE_CHROMIUM === '1' ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;

/**
 * Debian's Chromium, headless, with nothing reaching out to the network on its own (this machine's
 * network is closed), and `localhost` and every `*.localhost` portal resolved to the loopback address.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP *.localhost 127.0.0.1, MAP localhost 127.0.0.1'],
  });
}
