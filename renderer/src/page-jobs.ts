import { h, empty, duration, toast } from './dom.js';
import { api, type HubEvent } from './api.js';
import type { Page } from './page.js';

type Job = { id: number; command: string; status: string; running: boolean; pid: number | null; started_at: number; ended_at: number | null; note: string | null; log_bytes: number };

// Output panes by job id, with how far each has read, so new output is appended live.
const panes = new Map<number, { pre: HTMLPreElement; to: number; busy: boolean }>();
const runtimes = new Map<number, { el: HTMLElement; started: number }>();

async function pull(id: number): Promise<void> {
  const p = panes.get(id);
  if (!p || p.busy) return;
  p.busy = true;
  try {
    const r = await api<{ from: number; to: number; text: string }>(`/api/jobs/${id}/output?from=${p.to}`);
    if (r.text) p.pre.append(r.text);
    p.to = r.to;
    p.pre.scrollTop = p.pre.scrollHeight;
  } finally {
    p.busy = false;
  }
}

export const jobsPage: Page = {
  id: 'jobs',
  title: 'Jobs',
  reloadOn: ['job_*'],
  onEvent(e: HubEvent) {
    if (e.type !== 'job_output') return false;
    const id = (e.job as { id: number }).id;
    if (!panes.has(id)) return false;
    void pull(id);
    return true;
  },
  tick() {
    for (const r of runtimes.values()) r.el.textContent = duration(Date.now() - r.started);
  },
  async render() {
    const { jobs } = await api<{ jobs: Job[] }>('/api/jobs');
    panes.clear();
    runtimes.clear();
    if (jobs.length === 0) return h('div', { class: 'panel' }, empty('No background jobs', 'Jobs that a model starts with BackgroundBash appear here with their live output.'));
    const view = h(
      'div',
      {},
      ...jobs.map((j) => {
        const pre = h('pre', { 'data-job-output': j.id, 'aria-live': 'polite', 'aria-label': `Output of job ${j.id}` });
        const first = Math.max(0, j.log_bytes - 64 * 1024);
        panes.set(j.id, { pre, to: first, busy: false });
        const rt = h('span', {}, duration((j.ended_at ?? Date.now()) - j.started_at));
        if (j.running) runtimes.set(j.id, { el: rt, started: j.started_at });
        return h(
          'section',
          { class: 'panel', 'data-job': j.id },
          h(
            'div',
            { class: 'row' },
            h('strong', {}, `#${j.id}`),
            h('code', {}, j.command.length > 120 ? j.command.slice(0, 117) + '…' : j.command),
            h('span', { class: 'spacer' }),
            h('span', { class: j.running ? 'ok' : j.status.startsWith('exited 0') ? 'muted' : 'warn' }, j.status),
            h('span', { class: 'muted' }, rt),
            j.running ? h('button', { class: 'danger', onclick: async () => { try { await api(`/api/jobs/${j.id}/kill`, { body: {} }); toast(`Job ${j.id} killed`); } catch (err) { toast((err as Error).message); } } }, 'Kill') : null,
          ),
          j.note ? h('p', { class: 'muted' }, j.note) : null,
          pre,
        );
      }),
    );
    for (const j of jobs) void pull(j.id);
    return view;
  },
};
