import { h, empty, ago, toast } from './dom.js';
import { api } from './api.js';
import type { Page } from './page.js';

type Question = { question: string; header?: string; options: { label: string; description?: string }[]; multiSelect: boolean };
type Row = { id: number; status: string; purpose: string; client: string | null; created_at: number; answered_at: number | null; questions: Question[]; answer: { answers?: { question: string; selected: string | string[]; other?: string }[]; via?: string } | null };

function form(row: Row): HTMLElement {
  const fields = row.questions.map((q, i) => {
    const name = `q${row.id}_${i}`;
    const options = q.options.map((o, j) =>
      h('label', { class: 'option' }, h('input', { type: q.multiSelect ? 'checkbox' : 'radio', name, value: o.label, id: `${name}_${j}` }), h('span', {}, h('strong', {}, o.label), o.description ? h('span', { class: 'muted' }, ` — ${o.description}`) : null)),
    );
    const other = h('input', { type: 'text', name: `${name}_other`, 'aria-label': `Your own answer to: ${q.question}`, placeholder: 'Or answer in your own words', size: 50 });
    return h('fieldset', {}, h('legend', {}, q.header ? `${q.header}: ${q.question}` : q.question), ...options, other);
  });
  const msg = h('p', { class: 'err', role: 'alert' });
  const f = h(
    'form',
    {
      class: 'panel',
      'data-question': row.id,
      onsubmit: async (ev: Event) => {
        ev.preventDefault();
        const answers = row.questions.map((q, i) => {
          const name = `q${row.id}_${i}`;
          const picked = [...f.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((x) => x.value);
          const other = f.querySelector<HTMLInputElement>(`input[name="${name}_other"]`)!.value.trim();
          return { question: q.question, selected: q.multiSelect ? picked : (picked[0] ?? ''), ...(other ? { other } : {}) };
        });
        try {
          await api(`/api/questions/${row.id}/answer`, { body: { answers } });
          toast('Answer sent');
        } catch (err) {
          msg.textContent = (err as Error).message;
        }
      },
    },
    h('div', { class: 'row' }, h('strong', {}, row.purpose === 'plan' ? 'Plan approval' : 'Question'), h('span', { class: 'muted' }, `from ${row.client ?? 'a client'}, ${ago(row.created_at)}`)),
    ...fields,
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, 'Send answer'), h('button', { type: 'button', onclick: async () => { await api(`/api/questions/${row.id}/answer`, { body: { decline: true } }); toast('Declined'); } }, 'Decline')),
    msg,
  );
  return f;
}

// Forms survive redraws, so an answer being typed is never wiped by an event.
let forms = new Map<number, HTMLElement>();

export const questionsPage: Page = {
  id: 'questions',
  title: 'Questions',
  reloadOn: ['question_asked', 'question_answered'],
  async render() {
    const { pending, history } = await api<{ pending: Row[]; history: Row[] }>('/api/questions');
    const next = new Map<number, HTMLElement>();
    for (const row of pending) next.set(row.id, forms.get(row.id) ?? form(row));
    forms = next;
    const first = pending.length ? [...next.values()] : [h('div', { class: 'panel' }, empty('No questions waiting', 'When a model asks you something with AskUserQuestion and its client cannot show a form, it waits here for your answer.'))];
    const hist = history.map((r) =>
      h('li', {}, `${ago(r.answered_at ?? r.created_at)} — ${r.questions.map((q) => q.question).join(' / ')} → `, r.status === 'answered' ? (r.answer?.answers ?? []).map((a) => [Array.isArray(a.selected) ? a.selected.join(', ') : a.selected, a.other ? ` (${a.other})` : '']).flat().join('; ') : h('em', {}, r.status)),
    );
    return h('div', {}, ...first, h('div', { class: 'panel' }, h('h2', {}, 'History'), hist.length ? h('ul', {}, ...hist) : h('p', { class: 'muted' }, 'Nothing answered yet.')));
  },
};
