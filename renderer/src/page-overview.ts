import { h, ago, empty, toast, switchInput } from './dom.js';
import { api } from './api.js';
import type { Page } from './page.js';

type Overview = {
  version: string;
  serving: boolean;
  home: string;
  settingsFile: string;
  endpoints: Record<string, string>;
  sessions: { id: string; transport: string; client?: string; created: number; lastSeen: number }[];
  recent: { tool: string; client?: string; started: number; ms?: number; isError?: boolean; summary?: string }[];
  counts: { tools: number; jobsRunning: number; questionsPending: number; callbacks: number };
};

export const overviewPage: Page = {
  id: 'overview',
  title: 'Overview',
  reloadOn: ['session_*', 'tool_call_finished', 'tools_changed', 'settings_changed'],
  async render() {
    const o = await api<Overview>('/api/overview');
    const serving = h(
      'div',
      { class: 'panel row' },
      switchInput(o.serving, 'Serve MCP tools', async (on) => {
        await api('/api/serving', { body: { on } });
        toast(on ? 'Serving resumed' : 'Serving paused');
      }),
      h('div', {}, h('strong', {}, o.serving ? 'Serving MCP tools' : 'Serving is paused'), h('div', { class: 'muted' }, o.serving ? `${o.counts.tools} tools available to connected clients.` : 'Clients see no tools; every call answers "serving is paused".')),
    );
    const tokenBox = h('code', { class: 'mono' }, '••••••••••••');
    const token = h(
      'div',
      { class: 'panel' },
      h('h2', {}, 'Token'),
      h('p', { class: 'muted' }, 'HTTP clients send it as ', h('code', {}, 'Authorization: Bearer <token>'), '.'),
      h(
        'div',
        { class: 'row' },
        tokenBox,
        h('button', { onclick: async () => { const t = await api<{ token: string }>('/api/token'); await navigator.clipboard?.writeText(t.token).catch(() => undefined); tokenBox.textContent = t.token; toast('Token copied'); } }, 'Show & copy'),
        h('button', { class: 'danger', onclick: async () => { if (!confirm('Rotate the token? Every HTTP client must be given the new one.')) return; const t = await api<{ token: string }>('/api/token/rotate', { body: {} }); tokenBox.textContent = t.token; toast('Token rotated'); } }, 'Rotate'),
      ),
    );
    const endpoints = h('div', { class: 'panel' }, h('h2', {}, 'Endpoints'), h('table', {}, h('tbody', {}, ...Object.entries(o.endpoints).map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, h('code', {}, v)))))));
    const sessions = h(
      'div',
      { class: 'panel' },
      h('h2', {}, `Connected sessions (${o.sessions.length})`),
      o.sessions.length === 0
        ? empty('No client is connected yet', 'Connect Claude Desktop, Cursor or VS Code from the tray menu (Connect a client), or run "pincer connect <client>". Then ask it to run a command.')
        : h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Client'), h('th', {}, 'Transport'), h('th', {}, 'Since'), h('th', {}, 'Last seen'))), h('tbody', {}, ...o.sessions.map((s) => h('tr', {}, h('td', {}, s.client ?? 'unknown'), h('td', {}, s.transport), h('td', {}, ago(s.created)), h('td', {}, ago(s.lastSeen)))))),
    );
    const recent = h(
      'div',
      { class: 'panel' },
      h('h2', {}, 'Recent calls'),
      o.recent.length === 0 ? h('p', { class: 'muted' }, 'No tool calls yet.') : h('table', {}, h('tbody', {}, ...o.recent.map((c) => h('tr', {}, h('td', {}, ago(c.started)), h('td', {}, h('strong', {}, c.tool)), h('td', {}, c.client ?? ''), h('td', { class: c.isError ? 'err' : '' }, c.ms === undefined ? 'running…' : `${c.ms} ms`), h('td', { class: 'muted' }, (c.summary ?? '').slice(0, 90)))))),
    );
    return h('div', {}, serving, h('div', { class: 'grid' }, token, endpoints), sessions, recent, h('p', { class: 'muted' }, `Data: ${o.home} · Settings: ${o.settingsFile}`));
  },
};
