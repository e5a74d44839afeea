import type { Electron } from './electron-api.js';
import { CLIENTS, CLIENT_IDS, type ClientId } from '../connect/clients.js';

export type TrayState = 'serving' | 'paused' | 'error' | 'question';

export interface TrayFacts {
  serving: boolean;
  error?: string;
  questionsPending: number;
  jobsRunning: number;
  /** Clients with an MCP session open now (bridges, HTTP clients), counted once each. */
  clientsConnected: number;
  startAtLogin: boolean;
  connected: Record<ClientId, boolean>;
  /** Claude Desktop's one-click install is at hand (the .mcpb for this platform). */
  bundleAvailable: boolean;
}

/** Which icon the tray shows: a waiting question first, then an error, then serving or paused. */
export function trayState(f: TrayFacts): TrayState {
  if (f.questionsPending > 0) return 'question';
  if (f.error) return 'error';
  return f.serving ? 'serving' : 'paused';
}

export function trayTooltip(f: TrayFacts): string {
  if (f.error) return `Pincer — ${f.error}`;
  const parts = [f.serving ? 'serving MCP tools' : 'serving paused'];
  if (f.questionsPending) parts.push(`${f.questionsPending} question(s) waiting`);
  if (f.jobsRunning) parts.push(`${f.jobsRunning} job(s) running`);
  return `Pincer — ${parts.join(', ')}`;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The menu's first line, read at a glance: serving or paused (or why not), clients, and what is running or waiting. */
export function trayStatus(f: TrayFacts): string {
  if (f.error) return `Not serving: ${f.error.length > 90 ? `${f.error.slice(0, 87)}…` : f.error}`;
  const parts = [f.serving ? 'Serving' : 'Paused', `${count(f.clientsConnected, 'client', 'clients')} connected`];
  if (f.jobsRunning) parts.push(`${count(f.jobsRunning, 'job', 'jobs')} running`);
  if (f.questionsPending) parts.push(`${count(f.questionsPending, 'question', 'questions')} waiting`);
  return parts.join(' · ');
}

export interface TrayActions {
  setServing(on: boolean): void;
  openDashboard(page?: string): void;
  toggleClient(id: ClientId, connect: boolean): void;
  installBundle(): void;
  setStartAtLogin(on: boolean): void;
  quit(): void;
}

/** The tray menu as a template: a pure function of the facts, so it is tested without Electron. */
export function trayMenu(f: TrayFacts, a: TrayActions): Electron.MenuItemConstructorOptions[] {
  return [
    { label: trayStatus(f), enabled: false },
    { type: 'separator' },
    { label: f.serving ? 'Pause MCP serving' : 'Resume MCP serving', click: () => a.setServing(!f.serving) },
    { label: 'Open dashboard', click: () => a.openDashboard() },
    ...(f.questionsPending ? [{ label: `Answer ${f.questionsPending} waiting question(s)…`, click: () => a.openDashboard('questions') }] : []),
    { type: 'separator' },
    {
      label: 'Connect a client',
      submenu: [...CLIENT_IDS.map((id) => clientItem(id, f, a)), { type: 'separator' }, { label: 'More on the Connect page…', click: () => a.openDashboard('connect') }],
    },
    { label: 'Start at login', type: 'checkbox', checked: f.startAtLogin, click: () => a.setStartAtLogin(!f.startAtLogin) },
    { type: 'separator' },
    { label: 'Quit Pincer', click: () => a.quit() },
  ];
}

/** Claude Desktop is offered the bundle first (its own install dialog, settings form and updates), the config edit second. */
function clientItem(id: ClientId, f: TrayFacts, a: TrayActions): Electron.MenuItemConstructorOptions {
  const edit = { label: CLIENTS[id].name, type: 'checkbox' as const, checked: f.connected[id], click: () => a.toggleClient(id, !f.connected[id]) };
  if (id !== 'claude-desktop' || !f.bundleAvailable) return edit;
  return {
    label: CLIENTS[id].name,
    submenu: [
      { label: 'Install the Pincer bundle (recommended)…', click: () => a.installBundle() },
      { ...edit, label: f.connected[id] ? 'Added to claude_desktop_config.json (click to remove)' : 'Add to claude_desktop_config.json instead' },
    ],
  };
}
