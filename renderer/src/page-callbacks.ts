import { h, empty, ago, duration, toast } from './dom.js';
import { api } from './api.js';
import type { Page } from './page.js';

type Callbacks = { callbacks: { id: number; message: string; delay_seconds: number; next_fire_at: number; fires_left: number | null }[]; recent: { id: number; message: string; fired_at: number; late: boolean }[]; now: number };

const countdowns: { el: HTMLElement; at: number }[] = [];

export const callbacksPage: Page = {
  id: 'callbacks',
  title: 'Callbacks',
  reloadOn: ['callback_fired', 'callbacks_changed'],
  tick() {
    for (const c of countdowns) c.el.textContent = duration(Math.max(0, c.at - Date.now()));
  },
  async render() {
    const d = await api<Callbacks>('/api/callbacks');
    countdowns.length = 0;
    const skew = Date.now() - d.now;
    const active = d.callbacks.length
      ? h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Slot'), h('th', {}, 'Message'), h('th', {}, 'Next in'), h('th', {}, 'Every'), h('th', {}, 'Fires left'), h('th', {}))), h('tbody', {}, ...d.callbacks.map((c) => {
          const el = h('span', {});
          countdowns.push({ el, at: c.next_fire_at + skew });
          return h('tr', {}, h('td', {}, c.id), h('td', {}, c.message), h('td', {}, el), h('td', {}, `${c.delay_seconds} s`), h('td', {}, c.fires_left ?? '∞'), h('td', {}, h('button', { class: 'danger', onclick: async () => { await api(`/api/callbacks/${c.id}/cancel`, { body: {} }); toast(`Callback ${c.id} cancelled`); } }, 'Cancel')));
        })))
      : empty('No active callbacks', 'A model sets them with SetCallback to be reminded later; they count down here.');
    this.tick?.();
    return h('div', {}, h('div', { class: 'panel' }, active), h('div', { class: 'panel' }, h('h2', {}, 'Recently fired'), d.recent.length ? h('ul', {}, ...d.recent.map((f) => h('li', {}, `${ago(f.fired_at)} — ${f.message}${f.late ? ' (late)' : ''}`))) : h('p', { class: 'muted' }, 'Nothing yet.')));
  },
};
