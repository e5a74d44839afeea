import { useState } from 'preact/hooks';
import type { QuestionViewData } from '../../../main/tools/views/question-view.js';
import { callTool, numberArg, stringArg, structuredOf, textOf, usePoll, useCall } from './bridge.js';
import { DashboardLink, Problem, StatusLine } from './parts.js';

type Shown = NonNullable<QuestionViewData['question']>;
type Question = Shown['questions'][number];
type Answer = Shown['answers'][number];

const SETTLED: Record<string, string> = { answered: 'Answered', declined: 'Declined', timeout: 'Nobody answered in time', cancelled: 'Cancelled' };
const VIA: Record<string, string> = { client: 'in the chat app’s own form', dashboard: 'in the Pincer dashboard', chat: 'here' };

/** One question's choice and free text, as the form holds them. */
interface Draft {
  picked: string[];
  other: string;
}

function QuestionFields(props: { q: Question; index: number; draft: Draft; missing: boolean; onChange(d: Draft): void; disabled: boolean }) {
  const { q, index, draft } = props;
  const name = `q${index}`;
  const toggle = (label: string, on: boolean) => {
    const picked = q.multiSelect ? (on ? [...draft.picked, label] : draft.picked.filter((p) => p !== label)) : on ? [label] : [];
    props.onChange({ ...draft, picked });
  };
  return (
    <fieldset class="question" aria-describedby={props.missing ? `${name}-missing` : undefined} disabled={props.disabled}>
      <legend>
        {q.header ? <span class="tag">{q.header}</span> : null} {q.question}
        {q.multiSelect ? <span class="muted small"> (choose any)</span> : null}
      </legend>
      {q.options.map((o, i) => (
        <label class="option" key={o.label}>
          <input type={q.multiSelect ? 'checkbox' : 'radio'} name={name} value={o.label} checked={draft.picked.includes(o.label)} onChange={(e) => toggle(o.label, e.currentTarget.checked)} aria-describedby={o.description ? `${name}-o${i}` : undefined} />
          <span>
            {o.label}
            {o.description ? (
              <span class="muted small" id={`${name}-o${i}`}>
                {' '}
                — {o.description}
              </span>
            ) : null}
          </span>
        </label>
      ))}
      <label class="other">
        <span>Your own answer (optional)</span>
        <input type="text" value={draft.other} onInput={(e) => props.onChange({ ...draft, other: e.currentTarget.value })} />
      </label>
      {props.missing ? (
        <p class="problem small" id={`${name}-missing`}>
          Choose an option or write an answer.
        </p>
      ) : null}
    </fieldset>
  );
}

function Settled(props: { q: Shown }) {
  const { q } = props;
  return (
    <>
      <p class="settled">
        <strong>{SETTLED[q.status] ?? q.status}</strong>
        {q.via && q.status !== 'timeout' ? ` ${VIA[q.via] ?? `via ${q.via}`}` : ''}.
      </p>
      {q.status === 'answered' ? (
        <dl class="answers">
          {q.answers.map((a: Answer) => (
            <div key={a.question}>
              <dt>{a.question}</dt>
              <dd>
                {(Array.isArray(a.selected) ? a.selected.join(', ') : a.selected) || '(no choice)'}
                {a.other ? <span class="muted"> — “{a.other}”</span> : null}
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
    </>
  );
}

export function QuestionView() {
  const call = useCall();
  const resultId = structuredOf(call.result)?.question_id;
  const askedId = typeof resultId === 'number' ? resultId : numberArg(call.input, 'question_id');
  const questionsJson = stringArg(call.input, 'questions_json');
  const [shown, setShown] = useState<Shown>();
  const [dashboard, setDashboard] = useState<string>();
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [missing, setMissing] = useState<number[]>([]);
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string>();
  const id = shown?.id ?? askedId;

  const take = (r: QuestionViewData) => {
    if (!r.question) return;
    setShown(r.question);
    setDashboard(r.dashboard_url ?? undefined);
    setDrafts((d) => (d.length ? d : r.question!.questions.map(() => ({ picked: [], other: '' }))));
  };

  // Find the question (its id comes with the call's result, which waits for the answer), then watch it while it is open.
  const failed = call.result?.isError ? textOf(call.result) || 'AskUserQuestion failed.' : undefined;
  usePoll(
    async (signal) => {
      if (failed) return false;
      if (id === undefined) {
        if (!questionsJson) return false;
        take(await callTool<QuestionViewData>('QuestionViewRead', { questions_json: questionsJson }, signal));
        return true;
      }
      if (!shown || shown.id !== id) {
        take(await callTool<QuestionViewData>('QuestionViewRead', { question_id: id }, signal));
        return true;
      }
      if (shown.status !== 'pending') return false;
      take(await callTool<QuestionViewData>('QuestionViewRead', { question_id: id, status: 'pending', wait_ms: 15_000 }, signal));
      return true;
    },
    [id, shown?.id, shown?.status, questionsJson, failed],
    setProblem,
  );

  const send = async (decline: boolean) => {
    if (!shown) return;
    const answers = shown.questions.map((q, i) => {
      const d = drafts[i] ?? { picked: [], other: '' };
      return { question: q.question, selected: q.multiSelect ? d.picked : (d.picked[0] ?? ''), ...(d.other.trim() ? { other: d.other.trim() } : {}) };
    });
    if (!decline) {
      const empty = answers.flatMap((a, i) => ((Array.isArray(a.selected) ? a.selected.length : a.selected) || a.other ? [] : [i]));
      setMissing(empty);
      if (empty.length) return;
    }
    setSending(true);
    try {
      take(await callTool<QuestionViewData>('QuestionViewAnswer', decline ? { question_id: shown.id, decline: true } : { question_id: shown.id, answers }));
      setProblem(undefined);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
      // Answered elsewhere meanwhile: show how.
      take(await callTool<QuestionViewData>('QuestionViewRead', { question_id: shown.id }).catch(() => ({ question: null, dashboard_url: null })));
    } finally {
      setSending(false);
    }
  };

  if (!shown) {
    return (
      <article class="view" aria-busy={!failed} aria-labelledby="title">
        <h1 id="title" class="title">
          A question for you
        </h1>
        <p class="muted">{call.cancelled ? `The call was cancelled: ${call.cancelled}` : failed ? 'The question could not be put.' : 'Loading the question…'}</p>
        <Problem text={failed ?? problem} />
      </article>
    );
  }
  const pending = shown.status === 'pending';
  return (
    <article class="view" aria-labelledby="title">
      <header class="head">
        <h1 id="title" class="title">
          {shown.questions.length === 1 ? 'A question for you' : `${shown.questions.length} questions for you`}
        </h1>
        <span class={`badge ${pending ? 'ok' : 'muted'}`}>{pending ? 'waiting for you' : (SETTLED[shown.status] ?? shown.status).toLowerCase()}</span>
      </header>
      {pending ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void send(false);
          }}
        >
          {shown.questions.map((q, i) => (
            <QuestionFields key={i} q={q} index={i + 1} draft={drafts[i] ?? { picked: [], other: '' }} missing={missing.includes(i)} disabled={sending} onChange={(d) => setDrafts((all) => all.map((x, j) => (j === i ? d : x)))} />
          ))}
          <div class="actions">
            <button type="submit" class="primary" disabled={sending}>
              Send answer
            </button>
            <button type="button" disabled={sending} onClick={() => void send(true)}>
              Decline
            </button>
            <span class="muted small">Open until {new Date(shown.expires_at).toLocaleTimeString()}</span>
          </div>
        </form>
      ) : (
        <Settled q={shown} />
      )}
      <footer class="foot">{dashboard ? <DashboardLink url={dashboard} label="Questions on the Pincer dashboard" /> : null}</footer>
      <Problem text={problem} />
      <StatusLine text={pending ? '' : `Question ${(SETTLED[shown.status] ?? shown.status).toLowerCase()}`} />
    </article>
  );
}
