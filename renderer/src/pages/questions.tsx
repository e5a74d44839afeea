import { useRef, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { useNow, useResource } from '../hooks.js';
import { ConfirmButton, Empty, Panel, Problem, announce, Pending } from '../ui.js';
import { ago, duration } from '../format.js';
import type { PageProps } from '../types.js';

type Question = { question: string; header?: string; options: { label: string; description?: string }[]; multiSelect: boolean };
type Answer = { question: string; selected: string | string[]; other?: string };
type Row = { id: number; status: string; purpose: string; client: string | null; created_at: number; answered_at: number | null; questions: Question[]; answer: { answers?: Answer[]; via?: string } | null };

function QuestionForm(props: { row: Row; deadline: number; now: number }) {
  const { row } = props;
  const form = useRef<HTMLFormElement>(null);
  const [problem, setProblem] = useState<string>();
  const left = props.deadline - props.now;
  return (
    <form
      ref={form}
      class="panel"
      data-question={row.id}
      onSubmit={async (e) => {
        e.preventDefault();
        const f = form.current!;
        const answers = row.questions.map((q, i) => {
          const name = `q${row.id}_${i}`;
          const picked = [...f.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((x) => x.value);
          const other = f.querySelector<HTMLInputElement>(`input[name="${name}_other"]`)!.value.trim();
          return { question: q.question, selected: q.multiSelect ? picked : (picked[0] ?? ''), ...(other ? { other } : {}) };
        });
        try {
          await api(`/api/questions/${row.id}/answer`, { body: { answers } });
          announce('Answer sent');
        } catch (err) {
          setProblem(describeError(err));
        }
      }}
    >
      <div class="row">
        <strong>{row.purpose === 'plan' ? 'Plan approval' : 'Question'}</strong>
        <span class="muted">
          from {row.client ?? 'a client'}, {ago(row.created_at, props.now)}
        </span>
        <span class="spacer" />
        <span class={left < 60_000 ? 'warn' : 'muted'}>{left > 0 ? `${duration(left)} left to answer` : 'time is up'}</span>
      </div>
      {row.questions.map((q, i) => {
        const name = `q${row.id}_${i}`;
        return (
          <fieldset key={name}>
            <legend>{q.header ? `${q.header}: ${q.question}` : q.question}</legend>
            {q.options.map((o, j) => (
              <label class="option" key={o.label}>
                <input type={q.multiSelect ? 'checkbox' : 'radio'} name={name} value={o.label} id={`${name}_${j}`} />
                <span>
                  <strong>{o.label}</strong>
                  {o.description ? <span class="muted"> — {o.description}</span> : null}
                </span>
              </label>
            ))}
            <input type="text" class="answer-text" name={`${name}_other`} aria-label={`Your own answer to: ${q.question}`} placeholder="Or answer in your own words" />
          </fieldset>
        );
      })}
      <div class="row">
        <button class="primary" type="submit">
          Send answer
        </button>
        <ConfirmButton
          label="Decline"
          question="Decline this question?"
          detail="The model is told that you declined to answer."
          confirm="Decline"
          onConfirm={async () => {
            try {
              await api(`/api/questions/${row.id}/answer`, { body: { decline: true } });
              announce('Declined');
            } catch (err) {
              setProblem(describeError(err));
            }
          }}
        />
      </div>
      <Problem text={problem} />
    </form>
  );
}

function answerText(a: Answer): string {
  const picked = Array.isArray(a.selected) ? a.selected.filter(Boolean).join(', ') : a.selected;
  return [picked, a.other ? `“${a.other}”` : ''].filter(Boolean).join(' — ') || '(no choice)';
}

export function QuestionsPage(props: PageProps) {
  const r = useResource<{ pending: Row[]; history: Row[] }>('/api/questions', ['question_asked', 'question_answered'], props.onSignedOut);
  const now = useNow(1000);
  const timeout = (props.overview?.askTimeoutS ?? 600) * 1000;
  if (!r.data) return <Pending error={r.error} />;
  const { pending, history } = r.data;
  return (
    <>
      <Problem text={r.error} />
      {pending.length ? (
        pending.map((row) => <QuestionForm key={row.id} row={row} deadline={row.created_at + timeout} now={now} />)
      ) : (
        <Panel>
          <Empty title="No questions waiting">When a model asks you something with AskUserQuestion and its client cannot show a form, it waits here for your answer.</Empty>
        </Panel>
      )}
      <Panel title="History">
        {history.length ? (
          <ul class="history">
            {history.map((h) => (
              <li key={h.id}>
                <span class="muted">{ago(h.answered_at ?? h.created_at, now)}</span>
                <ul>
                  {h.questions.map((q, i) => {
                    const a = h.answer?.answers?.[i];
                    return (
                      <li key={i}>
                        {q.question} → {h.status === 'answered' && a ? answerText(a) : <em>{h.status}</em>}
                      </li>
                    );
                  })}
                </ul>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">Nothing answered yet.</p>
        )}
      </Panel>
    </>
  );
}
