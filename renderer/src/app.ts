import { h } from './dom.js';
import { api, subscribe, Unauthorized, type HubEvent } from './api.js';
import type { Page } from './page.js';
import { overviewPage } from './page-overview.js';
import { toolsPage } from './page-tools.js';
import { settingsPage } from './page-settings.js';
import { tasksPage } from './page-tasks.js';
import { jobsPage } from './page-jobs.js';
import { callbacksPage } from './page-callbacks.js';
import { questionsPage } from './page-questions.js';
import { activityPage } from './page-activity.js';
import { skillsPage } from './page-skills.js';

const PAGES: Page[] = [overviewPage, toolsPage, settingsPage, tasksPage, jobsPage, callbacksPage, questionsPage, activityPage, skillsPage];

let current: Page = overviewPage;
let reloadTimer: number | undefined;
const main = () => document.getElementById('main')!;

function route(): Page {
  const id = location.hash.replace(/^#\/?/, '') || 'overview';
  return PAGES.find((p) => p.id === id) ?? overviewPage;
}

function renderNav(counts: { questions: number; jobs: number }): void {
  const nav = document.getElementById('nav')!;
  nav.replaceChildren(
    ...PAGES.map((p) => {
      const badge = p.id === 'questions' && counts.questions ? counts.questions : p.id === 'jobs' && counts.jobs ? counts.jobs : 0;
      return h('li', {}, h('a', { href: `#/${p.id}`, 'aria-current': p === current ? 'page' : undefined }, p.title, badge ? h('span', { class: 'badge', 'aria-label': `${badge} waiting` }, badge) : null));
    }),
  );
}

async function show(page: Page, focus = false): Promise<void> {
  current = page;
  document.title = `${page.title} — Pincer`;
  try {
    const view = await page.render();
    main().replaceChildren(h('h1', {}, page.title), view);
    if (focus) main().focus();
  } catch (err) {
    if (err instanceof Unauthorized) return login();
    main().replaceChildren(h('h1', {}, page.title), h('div', { class: 'panel err' }, `Could not load: ${(err as Error).message}`));
  }
  void refreshChrome();
}

async function refreshChrome(): Promise<void> {
  try {
    const o = await api<{ serving: boolean; counts: { questionsPending: number; jobsRunning: number }; version: string }>('/api/overview');
    renderNav({ questions: o.counts.questionsPending, jobs: o.counts.jobsRunning });
    const status = document.getElementById('serving-status')!;
    status.replaceChildren(h('span', { class: o.serving ? 'ok' : 'warn' }, o.serving ? '● Serving' : '● Paused'), ` · v${o.version}`);
  } catch {
    // The page itself reports problems.
  }
}

function login(): void {
  const input = h('input', { type: 'password', id: 'token', autocomplete: 'current-password', 'aria-describedby': 'token-help', required: true });
  const msg = h('p', { class: 'err', role: 'alert' });
  const form = h(
    'form',
    {
      class: 'panel login',
      onsubmit: async (ev: Event) => {
        ev.preventDefault();
        const res = await fetch('/api/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: input.value }) });
        if (res.ok) location.reload();
        else msg.textContent = ((await res.json()) as { error?: { message?: string } }).error?.message ?? 'Wrong token.';
      },
    },
    h('h1', {}, 'Sign in to Pincer'),
    h('label', { for: 'token' }, 'Hub token'),
    h('div', { class: 'row' }, input, h('button', { class: 'primary', type: 'submit' }, 'Sign in')),
    h('p', { id: 'token-help', class: 'muted' }, 'Run ', h('code', {}, 'pincer token'), ' in a terminal to print it.'),
    msg,
  );
  document.querySelector('.sidebar')?.setAttribute('hidden', '');
  main().replaceChildren(form);
  input.focus();
}

function onEvent(e: HubEvent): void {
  if (e.type === 'ping' || e.type === 'connected') return;
  // Each page says which events change what it shows; those redraw it shortly after.
  if (current.reloadOn.some((t) => e.type === t || (t.endsWith('*') && e.type.startsWith(t.slice(0, -1))))) {
    if (current.onEvent?.(e)) return;
    window.clearTimeout(reloadTimer);
    reloadTimer = window.setTimeout(() => void show(current), 150);
  } else if (['question_asked', 'question_answered', 'job_started', 'job_ended', 'tools_changed', 'settings_changed'].includes(e.type)) {
    void refreshChrome();
  }
}

window.addEventListener('hashchange', () => void show(route(), true));
window.addEventListener('DOMContentLoaded', async () => {
  try {
    await api('/api/overview');
  } catch (err) {
    if (err instanceof Unauthorized) return login();
  }
  subscribe(onEvent, (live) => document.body.classList.toggle('offline', !live));
  await show(route());
  // Countdowns and runtimes tick without a reload.
  window.setInterval(() => current.tick?.(), 1000);
});
