import { useEffect, useState } from 'preact/hooks';
import { Panel } from '../ui.js';
import type { PageProps } from '../types.js';
import { ConnectList } from './connect.js';

/** Where the tray icon is on each desktop, for the person who just started Pincer and saw no window but this one. */
const TRAY_PLACE: Record<string, string> = {
  darwin: 'in the menu bar at the top right of the screen',
  win32: 'in the notification area at the bottom right of the taskbar (under the ^ arrow when it is hidden)',
  linux: 'in the system tray or top bar of your desktop (on GNOME it needs the AppIndicator extension)',
};

function usePlatform(): string {
  const [platform, setPlatform] = useState<string>(/Mac/.test(navigator.userAgent) ? 'darwin' : /Windows/.test(navigator.userAgent) ? 'win32' : 'linux');
  useEffect(() => {
    // The app's window knows for sure.
    void window.pincerDesktop?.info().then(
      (i) => setPlatform(i.platform),
      () => {
        // The window could not say: the guess from the user agent stays.
      },
    );
  }, []);
  return platform;
}

/** The first launch's one window: what Pincer is, where it went, and the clients to connect. */
export function WelcomePage(props: PageProps) {
  const platform = usePlatform();
  return (
    <>
      <Panel title="Pincer runs in the background">
        <p>
          Pincer gives your AI clients — Claude Desktop, Claude Code, Cursor, VS Code, Gemini CLI, Codex — local tools over MCP: it runs commands, keeps tasks and plans, reads web pages and images, searches the web, and asks you when a model needs an answer.
        </p>
        <p>
          It has no window of its own: its icon is <strong data-tray-place>{TRAY_PLACE[platform] ?? TRAY_PLACE.linux}</strong>. Click it to pause serving, open this dashboard, connect a client or quit. This window shows once; open it again from the tray icon.
        </p>
      </Panel>
      <h2 class="section">Connect a client</h2>
      <ConnectList {...props} />
      <p>
        <a href="#/overview">Go to the overview</a>
      </p>
    </>
  );
}
