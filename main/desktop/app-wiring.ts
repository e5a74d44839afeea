import type { ElectronApi } from './electron-api.js';
import type { Hub } from '../hub/hub.js';
import { readHubFile, type HubInfo } from '../hub/lock.js';
import { askSignInLink } from '../hub/dashboard-link.js';
import { verifyHub } from '../hub/identity.js';
import type { PincerPaths } from '../core/paths.js';
import type { DashboardWindow } from './window.js';
import { registerIpc } from './ipc.js';
import { subresourcePolicy } from '../tools/web/browser.js';
import { Notices, noticeFor } from './notices.js';
import { errorMessage } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import { IPC } from './channels.js';
import { logger } from '../core/log.js';

const log = logger('desktop');

/**
 * Another hub of this data folder, which the window shows when the tray app runs none of its own: each
 * sign-in link is asked for after a fresh bound proof (identity.ts), and the hub that gave it is kept
 * (`shown`), so that every later load of the window can be checked against it.
 */
export interface OtherHub {
  link(page: string): Promise<string>;
  /** Whether the hub whose dashboard the window shows still proves itself (same pid, bound proof). */
  stillThere(): Promise<boolean>;
  shown?: HubInfo;
}

export function otherHub(paths: PincerPaths): OtherHub {
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
 * No page in the app may use the camera, location, notifications of its own…; ReadDocs' window loads
 * only what builds a page's text. The dashboard window loads a page of another process's hub only
 * while that hub still proves itself: a reload after it stopped would otherwise show whatever program
 * took its port, with the window's preload API.
 */
export function lockDownSessions(electron: ElectronApi, hub: Hub | undefined, dashboard: DashboardWindow, other: OtherHub): void {
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
export function forwardHubEvents(hub: Hub, notices: Notices, refresh: () => void): void {
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
export function registerWindowIpc(electron: ElectronApi, w: { hub: Hub | undefined; dashboard: DashboardWindow; other: OtherHub; platform: NodeJS.Platform }): void {
  registerIpc(electron.ipcMain, () => (w.hub ? new URL(w.hub.dashboardUrl).origin : w.dashboard.origin), {
    [IPC.info]: () => ({ version: VERSION, platform: w.platform, hubUrl: w.hub?.url ?? w.other.shown?.url ?? '' }),
    // The window signs in without the token: a one-time code for a desktop session, which the page redeems and then proves the hub with.
    [IPC.signIn]: async () => {
      if (w.hub) return { code: w.hub.signIns.createCode('desktop') };
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
