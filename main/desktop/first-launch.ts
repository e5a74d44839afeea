import fs from 'node:fs';
import path from 'node:path';

/**
 * The tray app's first launch opens one window — the dashboard's Welcome page: what Pincer is, the
 * clients it found with their connect buttons, where the tray icon lives — so a new user sees where
 * Pincer went. Once shown, `desktop-welcomed` in the data folder says so and later launches start
 * to the tray only. A start at login (`--hidden`) never shows it.
 */
const MARKER = 'desktop-welcomed';

export function shouldWelcome(home: string, argv: readonly string[]): boolean {
  return !argv.includes('--hidden') && !fs.existsSync(path.join(home, MARKER));
}

export function markWelcomed(home: string): void {
  // Private like every file of the data folder (ARCHITECTURE §4); its content is only for a person who looks.
  fs.writeFileSync(path.join(home, MARKER), `The Pincer app showed its welcome window on ${new Date().toISOString()}.\n`, { mode: 0o600 });
}
