import path from 'node:path';
import type { ElectronApi, Electron } from './electron-api.js';
import { startHub, HubAlreadyRunning, type Hub, type ShutdownReason } from '../hub/hub.js';
import { pincerPaths } from '../core/paths.js';
import { HomeNotYoursError } from '../core/ownership.js';
import { DashboardWindow, type DashboardPlace } from './window.js';
import { AutoStart } from './autostart.js';
import { trayMenu, trayState, trayTooltip, type TrayFacts, type TrayState } from './tray-menu.js';
import { packagedLauncher } from './app-launcher.js';
import { claudeDesktopBundle } from './bundle.js';
import { ElectronRenderer } from './electron-renderer.js';
import { electronNetTransport } from './electron-net.js';
import { CLIENT_IDS, CLIENTS, type ClientId, type StdioLauncher } from '../connect/clients.js';
import { isConnected } from '../connect/client-config.js';
import { connectService } from '../connect/connect-service.js';
import type { ConnectService } from '../core/client-connect.js';
import { errorMessage } from '../core/errors.js';
import { Notices, type NoticeKind } from './notices.js';
import { forwardHubEvents, lockDownSessions, otherHub, registerWindowIpc } from './app-wiring.js';
import { markWelcomed, shouldWelcome } from './first-launch.js';
import { PACKAGE_ROOT } from '../core/version.js';
import { logger } from '../core/log.js';

const log = logger('desktop');

export interface DesktopOptions {
  home: string;
  argv?: string[];
  execPath?: string;
  resourcesPath?: string;
  platform?: NodeJS.Platform;
}

export interface DesktopApp {
  hub?: Hub;
  facts(): TrayFacts;
  state(): TrayState;
  menu(): Electron.MenuItemConstructorOptions[];
  dashboard: DashboardWindow;
  refresh(): void;
  quit(): Promise<boolean>;
}

/**
 * The tray app: one instance per user, the hub in this process, a tray icon
 * that shows its state, notifications, and the dashboard window.
 */
export async function startDesktop(electron: ElectronApi, opts: DesktopOptions): Promise<DesktopApp | undefined> {
  const { app } = electron;
  const platform = opts.platform ?? process.platform;
  if (!app.requestSingleInstanceLock()) {
    // Another Pincer owns the tray; it opens its dashboard on 'second-instance'.
    app.quit();
    return undefined;
  }
  if (platform === 'darwin') app.dock?.hide();
  await app.whenReady();

  let refresh = (): void => undefined;
  const { connect, bundle } = trayConnect(electron, opts, platform, () => refresh());
  const { hub, error, foreignHome } = await startTrayHub(electron, opts.home, connect);
  const other = otherHub(pincerPaths(opts.home));
  // Without a hub of its own the window shows another hub of this folder only after it proved itself,
  // each time (a program may hold its port by now): such a program gets neither a sign-in nor a page
  // in the window. A data folder another user owns proves nothing: its hub-secret is theirs (ownership.ts).
  const place = (): DashboardPlace => (hub ? { kind: 'own', url: hub.dashboardUrl } : foreignHome ? { kind: 'none', why: error ?? 'the hub is not running' } : { kind: 'other', link: (page) => other.link(page) });
  const dashboard = new DashboardWindow(electron, place);
  const autostart = new AutoStart(electron, opts.execPath, platform);
  lockDownSessions(electron, hub, dashboard, other);

  const facts = trayFacts(hub, error, autostart, bundle);
  const icon = (state: TrayState) => electron.nativeImage.createFromPath(path.join(PACKAGE_ROOT, 'build', 'tray', `${state}.png`));
  const notices = new Notices(electron, (page) => void dashboard.open(page), () => hub?.runtime.settings);
  const notify: Notify = (title, body, page, kind = 'action') => void notices.notify({ kind, title, body, page });

  let quitting = false;
  const quit = async (): Promise<boolean> => {
    if (!confirmQuit(electron, facts())) return false;
    quitting = true;
    await hub?.close('tray quit');
    app.exit(0);
    return true;
  };
  const actions = trayActions({ connect, autostart, notify, hub, dashboard, refresh: () => refresh(), quit });
  const tray = new electron.Tray(icon(trayState(facts())));
  refresh = () => {
    const f = facts();
    tray.setImage(icon(trayState(f)));
    tray.setToolTip(trayTooltip(f));
    tray.setContextMenu(electron.Menu.buildFromTemplate(trayMenu(f, actions)));
  };
  tray.on('click', () => dashboard.open());
  refresh();

  if (hub) forwardHubEvents(hub, notices, refresh);
  else notify('Pincer could not start its hub', `${error ?? 'the hub did not start'}. The tray menu says the same; fix it and start Pincer again.`, undefined, 'hub');
  // The first launch shows where Pincer went: one window (the Welcome page), once.
  if (hub && shouldWelcome(opts.home, opts.argv ?? [])) {
    dashboard.open('welcome');
    markWelcomed(opts.home);
  }
  registerWindowIpc(electron, { hub, dashboard, other, platform });
  void hub?.ended.then((reason) => {
    const code = exitWhenEnded(reason, notify);
    if (code === undefined) return;
    quitting = true;
    app.exit(code);
  });

  app.on('second-instance', () => void dashboard.open());
  // A tray app keeps running when its last window closes.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    void quit();
  });
  return { hub, facts, state: () => trayState(facts()), menu: () => trayMenu(facts(), actions), dashboard, refresh, quit };
}

type Notify = (title: string, body: string, page?: string, kind?: NoticeKind) => void;

/**
 * One connect service for the tray menu and the dashboard's Connect page (the hub serves it): the same
 * entry, the same outcome. Clients start this app's own `pincer stdio`; Claude Desktop gets its bundle.
 */
function trayConnect(electron: ElectronApi, opts: DesktopOptions, platform: NodeJS.Platform, changed: () => void): { connect: ConnectService; bundle: () => string | undefined } {
  const { app } = electron;
  const launcher: StdioLauncher = app.isPackaged
    ? packagedLauncher(opts.execPath ?? process.execPath, opts.resourcesPath ?? process.resourcesPath, platform)
    : { command: opts.execPath ?? process.execPath, args: [path.join(PACKAGE_ROOT, 'dist', 'main', 'cli', 'pincer.js'), 'stdio'], env: { ELECTRON_RUN_AS_NODE: '1' } };
  const bundle = () => claudeDesktopBundle({ isPackaged: app.isPackaged, resourcesPath: opts.resourcesPath ?? process.resourcesPath, platform });
  const connect = connectService({
    launcher: () => launcher,
    // Claude Desktop owns .mcpb files: opening one shows its install dialog.
    bundle: { file: bundle, open: async (file) => (await electron.shell.openPath(file)) || undefined },
    changed,
  });
  return { connect, bundle };
}

/** What the tray shows, read afresh each time. */
function trayFacts(hub: Hub | undefined, error: string | undefined, autostart: AutoStart, bundle: () => string | undefined): () => TrayFacts {
  return () => {
    const s = hub?.runtime.services;
    return {
      serving: hub ? !hub.runtime.registry.servingPaused() : false,
      error,
      questionsPending: s ? s.questions.pending().length : 0,
      jobsRunning: s ? s.jobs.repo.countRunning() : 0,
      clientsConnected: hub ? new Set(hub.sessions.list().map((x) => x.client ?? x.id)).size : 0,
      startAtLogin: autostart.enabled(),
      connected: Object.fromEntries(CLIENT_IDS.map((id) => [id, isConnected(id)])) as Record<ClientId, boolean>,
      bundleAvailable: bundle() !== undefined,
    };
  };
}

/** Quitting with jobs running or questions waiting asks first; whether to go on. */
function confirmQuit(electron: ElectronApi, f: TrayFacts): boolean {
  if (!f.jobsRunning && !f.questionsPending) return true;
  const what = [f.jobsRunning ? `${f.jobsRunning} background job(s) are running (they keep running)` : '', f.questionsPending ? `${f.questionsPending} question(s) are waiting for you` : ''].filter(Boolean).join(' and ');
  const choice = electron.dialog.showMessageBoxSync({ type: 'question', buttons: ['Quit', 'Cancel'], defaultId: 1, cancelId: 1, message: 'Quit Pincer?', detail: `${what}. Clients lose their tools until Pincer runs again.` });
  return choice === 0;
}

/** What the tray menu's items do. */
function trayActions(deps: { connect: ConnectService; autostart: AutoStart; notify: Notify; hub: Hub | undefined; dashboard: DashboardWindow; refresh: () => void; quit: () => Promise<boolean> }) {
  const { connect, notify } = deps;
  return {
    setServing: (on: boolean) => deps.hub?.runtime.settings.set('TOOLS', on ? 'true' : 'false'),
    openDashboard: (page?: string) => void deps.dashboard.open(page),
    toggleClient: (id: ClientId, on: boolean) => {
      (on ? connect.connect(id) : connect.disconnect(id)).then(
        (o) => notify(on ? `Pincer is connected to ${o.name}` : `Pincer is disconnected from ${o.name}`, `${o.next}${o.backup ? ` The old config was kept as ${path.basename(o.backup)}.` : ''}`, 'connect'),
        (err: unknown) => notify(`Could not change ${CLIENTS[id].name}`, errorMessage(err), 'connect'),
      );
    },
    installBundle: () => {
      connect.installBundle!().then(
        (o) => notify('Install Pincer in Claude Desktop', o.next),
        (err: unknown) => notify('Could not open the Pincer bundle', errorMessage(err)),
      );
    },
    setStartAtLogin: (on: boolean) => {
      deps.autostart.set(on);
      deps.refresh();
    },
    quit: () => void deps.quit(),
  };
}

/**
 * A hub that ended by another way than the tray's own Quit takes the tray app with it, saying why;
 * the exit code, or undefined when Quit (which exits by itself) closed it.
 */
function exitWhenEnded(reason: ShutdownReason, notify: Notify): number | undefined {
  switch (reason.kind) {
    case 'closed':
      return undefined;
    // `pincer serve --takeover` took the hub: this app has nothing left to show.
    case 'handover':
      notify('Pincer hub handed over', `pincer serve (pid ${reason.to.pid}) runs the hub now; the tray app quits. Background jobs keep running.`, undefined, 'hub');
      return 0;
    // `pincer stop` asked the hub to stop (drained and closed by now): the tray app goes with it.
    case 'stop-request':
      return 0;
    // Its data folder was deleted or replaced: no bridge can find this hub; the tray app says so and quits (a new start makes the folder again).
    case 'home-lost':
      notify('Pincer stopped', `The hub stopped: ${reason.reason}. Start Pincer again to make a new data folder. Background jobs keep running.`, undefined, 'hub');
      return 1;
  }
}

/** The hub in this process. The tray app has the better claim: a headless hub (one a client's bridge started) hands over to it. */
async function startTrayHub(electron: ElectronApi, home: string, connect: ConnectService): Promise<{ hub?: Hub; error?: string; foreignHome?: boolean }> {
  try {
    return { hub: await startHub({ home, role: 'desktop', takeover: 'headless', renderer: new ElectronRenderer(electron), searchTransport: electronNetTransport(electron), connect }) };
  } catch (err) {
    // The tray still starts, showing why in its menu and tooltip.
    const error = err instanceof HubAlreadyRunning ? `another Pincer hub runs for this data folder (pid ${err.pid}): ${err.message}` : (err as Error).message;
    log.error(`hub did not start: ${error}`, { err });
    return { error, foreignHome: err instanceof HomeNotYoursError };
  }
}
