import { h, switchInput, toast } from './dom.js';
import { api } from './api.js';
import type { Page } from './page.js';

type Tool = { name: string; title?: string; description?: string; group: string; enabled: boolean; key: string; inputSchema: unknown; stats: { calls: number; errors: number; medianMs?: number; p95Ms?: number } };

export const toolsPage: Page = {
  id: 'tools',
  title: 'Tools',
  reloadOn: ['tools_changed', 'tool_call_finished', 'skills_changed'],
  async render() {
    const { tools, serving } = await api<{ tools: Tool[]; serving: boolean }>('/api/tools');
    return h(
      'div',
      {},
      serving ? null : h('div', { class: 'panel warn' }, 'Serving is paused: no tool is offered to clients until it is resumed on the Overview page.'),
      ...tools.map((t) =>
        h(
          'section',
          { class: 'panel', 'data-tool': t.name },
          h(
            'div',
            { class: 'row' },
            switchInput(t.enabled, `${t.name} enabled`, async (on) => {
              await api(`/api/tools/${encodeURIComponent(t.name)}`, { body: { enabled: on } });
              toast(`${t.name} ${on ? 'on' : 'off'}`);
            }),
            h('h2', { style: 'margin:0' }, t.name),
            h('span', { class: 'muted' }, t.group),
            h('span', { class: 'spacer' }),
            h('span', { class: 'muted' }, `${t.stats.calls} calls · ${t.stats.errors} errors · median ${t.stats.medianMs ?? '–'} ms · p95 ${t.stats.p95Ms ?? '–'} ms`),
          ),
          h('p', {}, t.description ?? ''),
          h('details', {}, h('summary', {}, 'Input schema'), h('pre', {}, JSON.stringify(t.inputSchema, null, 2))),
        ),
      ),
    );
  },
};
