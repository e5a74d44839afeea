import { h, empty } from './dom.js';
import { api } from './api.js';
import type { Page } from './page.js';

type Call = { id: string; tool: string; client?: string; args: string; started: number; ms?: number; isError?: boolean; summary?: string };

let filter = { q: '', tool: '', errors: false };

export const activityPage: Page = {
  id: 'activity',
  title: 'Activity',
  reloadOn: ['tool_call_*'],
  onEvent: () => document.activeElement?.id === 'activity-search',
  async render() {
    const params = new URLSearchParams({ limit: '300', ...(filter.q ? { q: filter.q } : {}), ...(filter.tool ? { tool: filter.tool } : {}), ...(filter.errors ? { errors: '1' } : {}) });
    const { calls } = await api<{ calls: Call[] }>(`/api/activity?${params}`);
    const search = h('input', { type: 'search', id: 'activity-search', placeholder: 'Search tools, arguments, results', value: filter.q, 'aria-label': 'Search activity' });
    const errors = h('input', { type: 'checkbox', id: 'activity-errors' });
    errors.checked = filter.errors;
    const apply = () => {
      filter = { ...filter, q: search.value, errors: errors.checked };
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    };
    search.addEventListener('change', apply);
    errors.addEventListener('change', apply);
    const table = calls.length
      ? h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Time'), h('th', {}, 'Client'), h('th', {}, 'Tool'), h('th', {}, 'Arguments'), h('th', {}, 'Duration'), h('th', {}, 'Result'))), h('tbody', {}, ...calls.map((c) => h('tr', {}, h('td', {}, new Date(c.started).toLocaleTimeString()), h('td', {}, c.client ?? ''), h('td', {}, h('strong', {}, c.tool)), h('td', {}, h('code', {}, c.args.slice(0, 120))), h('td', {}, c.ms === undefined ? '…' : `${c.ms} ms`), h('td', { class: c.isError ? 'err' : '' }, (c.summary ?? '').slice(0, 120))))))
      : empty('No tool calls yet', 'Every call a client makes is listed here: when, which client, which tool, its arguments, how long it took and what came back.');
    return h('div', {}, h('div', { class: 'panel row' }, search, h('label', { class: 'row' }, errors, 'Errors only')), h('div', { class: 'panel' }, table));
  },
};
