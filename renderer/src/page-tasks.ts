import { h, empty } from './dom.js';
import { api } from './api.js';
import type { Page } from './page.js';

type Task = { id: number; name: string; active: boolean; done: number; total: number; completed: boolean; steps: { id: number; text: string; done: boolean }[] };
type Plan = { active: boolean; goal: string | null; status: string | null; plan_file: string | null; comment: string | null; text: string | null };

export const tasksPage: Page = {
  id: 'tasks',
  title: 'Tasks',
  reloadOn: ['tasks_changed', 'plan_changed'],
  async render() {
    const { tasks, plan } = await api<{ tasks: Task[]; plan: Plan }>('/api/tasks');
    const planPanel = plan.goal
      ? h('div', { class: 'panel' }, h('h2', {}, `Plan: ${plan.goal}`), h('p', { class: 'muted' }, `Status: ${plan.status}${plan.comment ? ` — ${plan.comment}` : ''}${plan.plan_file ? ` · ${plan.plan_file}` : ''}`), plan.text ? h('pre', {}, plan.text) : null)
      : null;
    if (tasks.length === 0) return h('div', {}, planPanel, h('div', { class: 'panel' }, empty('No tasks yet', 'When a model uses TaskManager, its tasks and steps show up here with their progress.')));
    return h(
      'div',
      {},
      planPanel,
      ...[...tasks].reverse().map((t) =>
        h(
          'section',
          { class: 'panel' },
          h('div', { class: 'row' }, h('h2', { style: 'margin:0' }, `${t.active ? '▶ ' : ''}${t.name}`), h('span', { class: 'spacer' }), h('span', { class: 'muted' }, `${t.done}/${t.total} done`)),
          h('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': t.total, 'aria-valuenow': t.done, 'aria-label': `${t.name} progress` }, h('div', { style: `width:${t.total ? Math.round((100 * t.done) / t.total) : t.completed ? 100 : 0}%` })),
          h('ul', { class: 'steps' }, ...t.steps.map((s) => h('li', { class: s.done ? 'done' : '' }, `${s.done ? '☑' : '☐'} ${s.text}`))),
        ),
      ),
    );
  },
};
