import path from 'node:path';
import type { ElectronApi, Electron } from './electron-api.js';
import { startHub, HubAlreadyRunning, type Hub } from '../hub/hub.js';
import { readHubFile, type HubInfo } from '../hub/lock.js';
import { askSignInLink } from '../hub/dashboard-link.js';
import { verifyHub } from '../hub/identity.js';
import { pincerPaths, type PincerPaths } from '../core/paths.js';
import { HomeNotYoursError } from '../core/ownership.js';
import { DashboardWindow, type DashboardPlace } from './window.js';
import { registerIpc } from './ipc.js';
import { AutoStart } from './autostart.js';
import { trayMenu, trayState, trayTooltip, type TrayFacts, type TrayState } from './tray-menu.js';
import { packagedLauncher } from './launcher.js';
import { claudeDesktopBundle } from './bundle.js';
import { ElectronRenderer } from './electron-renderer.js';
import { subresourcePolicy } from '../tools/web/browser.js';
import { electronNetTransport } from './electron-net.js';
import { CLIENT_IDS, CLIENTS, type ClientId, type StdioLauncher } from '../connect/clients.js';
import { isConnected } from '../connect/connect.js';
import { connectService } from '../connect/service.js';
import type { ConnectService } from '../core/client-connect.js';
import { errorMessage } from '../core/errors.js';
import { Notices, noticeFor, type NoticeKind } from './notices.js';
import { markWelcomed, shouldWelcome } from './first-launch.js';
import { PACKAGE_ROOT, VERSION } from '../core/version.js';
import { IPC } from './channels.js';
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
 * Another hub of this data folder, which the window shows when the tray app runs none of its own: each
 * sign-in link is asked for after a fresh bound proof (identity.ts), and the hub that gave it is kept
 * (`shown`), so that every later load of the window can be checked against it.
 */
interface OtherHub {
  link(page: string): Promise<string>;
  /** Whether the hub whose dashboard the window shows still proves itself (same pid, bound proof). */
  stillThere(): Promise<boolean>;
  shown?: HubInfo;
}

function otherHub(paths: PincerPaths): OtherHub {
  const proven = async (): Promise<HubInfo> => {
    const recorded = readHubFile(paths);
    // The proof is bound to the address the window would load (identity.ts): a relay on another port gets none.
    const v = recorded && (await verifyHub(paths, recorded));
    if (!recorded || !v?.ok) throw new Error(`no Pincer hub of ${paths.home} proves itself${recorded ? ` at ${recorded.url}` : ''}; start Pincer again`);
    return recorded;
  };
  const self: OtherHub = {
    link: async (page) => {
      const info = await proven();
      const { url } = await askSignInLink(paths, info, 'desktop');
      self.shown = info;
      return `${url}&to=${encodeURIComponent(page)}`;
    },
    stillThere: async () => {
      const shown = self.shown;
      const v = shown && (await verifyHub(paths, shown));
      return !!v && v.ok;
    },
  };
  return self;
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

  const launcher: StdioLauncher = app.isPackaged
    ? packagedLauncher(opts.execPath ?? process.execPath, opts.resourcesPath ?? process.resourcesPath, platform)
    : { command: opts.execPath ?? process.execPath, args: [path.join(PACKAGE_ROOT, 'dist', 'main', 'cli', 'pincer.js'), 'stdio'], env: { ELECTRON_RUN_AS_NODE: '1' } };
  const bundle = () => claudeDesktopBundle({ isPackaged: app.isPackaged, resourcesPath: opts.resourcesPath ?? process.resourcesPath, platform });
  let refresh = (): void => undefined;
  // One connect service for the tray menu and the dashboard's Connect page (the hub serves it): the same entry, the same outcome.
  const connect: ConnectService = connectService({
    launcher: () => launcher,
    // Claude Desktop owns .mcpb files: opening one shows its install dialog.
    bundle: { file: bundle, open: async (file) => (await electron.shell.openPath(file)) || undefined },
    changed: () => refresh(),
  });

  const { hub, error, foreignHome } = await startTrayHub(electron, opts.home, connect);
  const paths = pincerPaths(opts.home);
  const other = otherHub(paths);
  // Without a hub of its own the window shows another hub of this folder only after it proved itself,
  // each time (a program may hold its port by now): such a program gets neither a sign-in nor a page
  // in the window. A data folder another user owns proves nothing: its hub-secret is theirs (ownership.ts).
  const place = (): DashboardPlace => (hub ? { kind: 'own', url: hub.dashboardUrl } : foreignHome ? { kind: 'none', why: error ?? 'the hub is not running' } : { kind: 'other', link: (page) => other.link(page) });
  const dashboard = new DashboardWindow(electron, place);
  const autostart = new AutoStart(electron, opts.execPath, platform);

  lockDownSessions(electron, hub, dashboard, other);

  const facts = (): TrayFacts => {
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
  const icon = (state: TrayState) => electron.nativeImage.createFromPath(path.join(PACKAGE_ROOT, 'build', 'tray', `${state}.png`));
  const notices = new Notices(electron, (page) => void dashboard.open(page), () => hub?.runtime.settings);
  const notify = (title: string, body: string, page?: string, kind: NoticeKind = 'action') => void notices.notify({ kind, title, body, page });

  let quitting = false;
  const quit = async (): Promise<boolean> => {
    const f = facts();
    if (f.jobsRunning || f.questionsPending) {
      const what = [f.jobsRunning ? `${f.jobsRunning} background job(s) are running (they keep running)` : '', f.questionsPending ? `${f.questionsPending} question(s) are waiting for you` : ''].filter(Boolean).join(' and ');
      const choice = electron.dialog.showMessageBoxSync({ type: 'question', buttons: ['Quit', 'Cancel'], defaultId: 1, cancelId: 1, message: 'Quit Pincer?', detail: `${what}. Clients lose their tools until Pincer runs again.` });
      if (choice !== 0) return false;
    }
    quitting = true;
    await hub?.close();
    app.exit(0);
    return true;
  };

  const actions = {
    setServing: (on: boolean) => hub?.runtime.settings.set('TOOLS', on ? 'true' : 'false'),
    openDashboard: (page?: string) => void dashboard.open(page),
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
      autostart.set(on);
      refresh();
    },
    quit: () => void quit(),
  };

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

  // `pincer serve --takeover` took the hub: this app has nothing left to show.
  void hub?.handedOver.then((to) => {
    notify('Pincer hub handed over', `pincer serve (pid ${to.pid}) runs the hub now; the tray app quits. Background jobs keep running.`, undefined, 'hub');
    quitting = true;
    app.exit(0);
  });

  // `pincer stop` asked the hub to stop (drained and closed by now): the tray app goes with it.
  void hub?.stopRequested.then(() => {
    quitting = true;
    app.exit(0);
  });

  // Its data folder was deleted or replaced: no bridge can find this hub; the tray app says so and quits (a new start makes the folder again).
  void hub?.lost.then((reason) => {
    notify('Pincer stopped', `The hub stopped: ${reason}. Start Pincer again to make a new data folder. Background jobs keep running.`, undefined, 'hub');
    quitting = true;
    app.exit(1);
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

/**
 * No page in the app may use the camera, location, notifications of its own…; ReadDocs' window loads
 * only what builds a page's text. The dashboard window loads a page of another process's hub only
 * while that hub still proves itself: a reload after it stopped would otherwise show whatever program
 * took its port, with the window's preload API.
 */
function lockDownSessions(electron: ElectronApi, hub: Hub | undefined, dashboard: DashboardWindow, other: OtherHub): void {
  electron.session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  electron.session.defaultSession.webRequest.onBeforeRequest((details, cb) => {
    if (details.resourceType !== 'mainFrame' || hub || !other.shown || new URL(details.url).origin !== dashboard.origin) return cb({});
    void other.stillThere().then((ok) => {
      cb(ok ? {} : { cancel: true });
      if (!ok) dashboard.showNoHub(`the Pincer hub at ${other.shown?.url} (pid ${other.shown?.pid}) no longer proves itself; nothing was loaded from its address. Start Pincer again.`);
    });
  });
  const readdocs = electron.session.fromPartition('readdocs');
  readdocs.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  // Not what is only looked at: the same rule as headless Chromium.
  readdocs.webRequest.onBeforeRequest((details, cb) => {
    const policy = subresourcePolicy(details.resourceType);
    if (policy === 'skip') cb({ cancel: true });
    else if (policy === 'empty-stylesheet') cb({ redirectURL: 'data:text/css,' });
    else cb({});
  });
}

/** What needs the person becomes a notification (notices.ts decides which, grouped and silent by default); what the tray shows is refreshed when it changes. */
function forwardHubEvents(hub: Hub, notices: Notices, refresh: () => void): void {
  // A burst of events (clients connecting, jobs starting) redraws the tray once: a redraw reads every client's config file.
  let pending: NodeJS.Timeout | undefined;
  const later = () => {
    pending ??= setTimeout(() => {
      pending = undefined;
      try {
        refresh();
      } catch (err) {
        // The hub closed in the meantime (the app is quitting): there is nothing left to redraw.
        log.debug(`tray not redrawn: ${errorMessage(err)}`);
      }
    }, 100);
  };
  hub.runtime.events.subscribe((e) => {
    const notice = noticeFor(e);
    if (notice) notices.notify(notice);
    if (['question_asked', 'question_answered', 'settings_changed', 'tools_changed', 'job_started', 'job_ended', 'session_opened', 'session_closed'].includes(e.type)) later();
  });
}

/** What the dashboard window may ask of the main process (preload's narrow API); only pages of the origin it shows. */
function registerWindowIpc(electron: ElectronApi, w: { hub: Hub | undefined; dashboard: DashboardWindow; other: OtherHub; platform: NodeJS.Platform }): void {
  registerIpc(electron.ipcMain, () => (w.hub ? new URL(w.hub.dashboardUrl).origin : w.dashboard.origin), {
    [IPC.info]: () => ({ version: VERSION, platform: w.platform, hubUrl: w.hub?.url ?? w.other.shown?.url ?? '' }),
    // The window signs in without the token: a one-time code for a desktop session, which the page redeems and then proves the hub with.
    [IPC.signIn]: async () => {
      if (w.hub) return { code: w.hub.dashboardSessions.createCode('desktop') };
      // Another process's hub: asked again after a fresh proof (hub/dashboard-link.ts).
      const link = await w.other.link('overview');
      return { code: /#signin=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(link)![1]! };
    },
    [IPC.openExternal]: (url: unknown) => {
      if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new Error('only http(s) links open outside');
      return electron.shell.openExternal(url);
    },
  });
}
