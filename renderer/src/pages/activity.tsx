import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { useNow, useResource } from '../hooks.js';
import { Empty, Panel, Problem } from '../ui.js';
import { ago, dateTime, duration, pretty } from '../format.js';
import type { ActivityView, CallRecord, PageProps } from '../types.js';

type Filter = { q: string; tool: string; client: string; from: string; to: string; errors: boolean };
const NONE: Filter = { q: '', tool: '', client: '', from: '', to: '', errors: false };

function query(f: Filter): string {
  const p = new URLSearchParams({ limit: '300' });
  if (f.q) p.set('q', f.q);
  if (f.tool) p.set('tool', f.tool);
  if (f.client) p.set('client', f.client);
  if (f.errors) p.set('errors', '1');
  if (f.from) p.set('from', String(new Date(`${f.from}T00:00`).getTime()));
  if (f.to) p.set('to', String(new Date(`${f.to}T00:00`).getTime() + 86_400_000));
  return p.toString();
}

function Detail(props: { id: string; onClose(): void }) {
  const [call, setCall] = useState<CallRecord>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    api<{ call: CallRecord }>(`/api/activity/${encodeURIComponent(props.id)}`).then((r) => setCall(r.call), (err: unknown) => setProblem(describeError(err)));
  }, [props.id]);
  return (
    <Panel title="Call detail" class="detail">
      <Problem text={problem} />
      {call ? (
        <>
          <dl class="facts">
            <div>
              <dt>Tool</dt>
              <dd>{call.tool}</dd>
            </div>
            <div>
              <dt>When</dt>
              <dd>{dateTime(call.started)}</dd>
            </div>
            <div>
              <dt>Client</dt>
              <dd>{call.client ?? 'unknown'}</dd>
            </div>
            <div>
              <dt>Duration</dt>
              <dd>{call.ms === undefined ? 'running…' : duration(call.ms)}</dd>
            </div>
            <div>
              <dt>Outcome</dt>
              <dd class={call.isError ? 'err' : 'ok'}>{call.isError ? 'error' : call.ms === undefined ? '—' : 'ok'}</dd>
            </div>
          </dl>
          <h3>Arguments</h3>
          <pre tabIndex={0}>{pretty(call.args)}</pre>
          <h3>Result</h3>
          <pre tabIndex={0}>{call.summary ? pretty(call.summary) : '—'}</pre>
        </>
      ) : null}
      <button type="button" onClick={props.onClose}>
        Close detail
      </button>
    </Panel>
  );
}

export function ActivityPage(props: PageProps) {
  const [filter, setFilter] = useState<Filter>(NONE);
  const [draft, setDraft] = useState<Filter>(NONE);
  const [selected, setSelected] = useState<string>();
  const r = useResource<ActivityView>(`/api/activity?${query(filter)}`, ['tool_call_*'], props.onSignedOut);
  const now = useNow(5000);
  const set = (k: keyof Filter, v: string | boolean) => setDraft({ ...draft, [k]: v });
  /** Choices (tool, client, errors only) apply at once; typed fields wait for Enter or Apply. */
  const apply = (k: keyof Filter, v: string | boolean) => {
    const next = { ...draft, [k]: v };
    setDraft(next);
    setFilter(next);
  };
  return (
    <>
      <form
        class="panel filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        <label>
          <span>Search</span>
          <input type="search" id="activity-search" value={draft.q} placeholder="tools, arguments, results" onInput={(e) => set('q', (e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          <span>Tool</span>
          <select id="activity-tool" value={draft.tool} onChange={(e) => apply('tool', (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">all</option>
            {(r.data?.tools ?? []).map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          <span>Client</span>
          <select id="activity-client" value={draft.client} onChange={(e) => apply('client', (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">all</option>
            {(r.data?.clients ?? []).map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <label>
          <span>From</span>
          <input type="date" id="activity-from" value={draft.from} onChange={(e) => set('from', (e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          <span>To</span>
          <input type="date" id="activity-to" value={draft.to} onChange={(e) => set('to', (e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label class="inline">
          <input type="checkbox" id="activity-errors" checked={draft.errors} onChange={(e) => apply('errors', (e.currentTarget as HTMLInputElement).checked)} /> Errors only
        </label>
        <button type="submit">Apply</button>
      </form>
      <Problem text={r.error} />
      {selected ? <Detail key={selected} id={selected} onClose={() => setSelected(undefined)} /> : null}
      <Panel>
        {!r.data ? (
          <p class="muted">Loading…</p>
        ) : r.data.calls.length === 0 ? (
          <Empty title="No tool calls match">Every call a client makes is listed here: when, which client, which tool, how long it took and what came back.</Empty>
        ) : (
          <ul class="activity" aria-label="Tool calls, newest first">
            {r.data.calls.map((c) => (
              <li key={c.id} data-call={c.id} class={c.isError ? 'is-error' : ''}>
                <button type="button" class="call-row" aria-expanded={selected === c.id} onClick={() => setSelected(selected === c.id ? undefined : c.id)}>
                  <time dateTime={new Date(c.started).toISOString()} title={dateTime(c.started)}>
                    {ago(c.started, now)}
                  </time>
                  <strong>{c.tool}</strong>
                  <span class="muted clip">{c.client ?? ''}</span>
                  <span class="clip mono">{c.args}</span>
                  <span class={c.isError ? 'err' : 'muted'}>{c.ms === undefined ? 'running…' : duration(c.ms)}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Panel>
    </>
  );
}
