import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError, Unauthorized, isHubUnreachable } from '../api.js';
import { useNow } from '../hooks.js';
import { onEpoch, onHubEvent, type StreamEvent } from '../live.js';
import { Empty, Panel, Problem } from '../ui.js';
import { Kept } from '../kept.js';
import { ago, dateTime, duration, pretty } from '../format.js';
import type { ActivityView, CallRecord, FacetsView, PageProps } from '../types.js';

type Filter = { q: string; tool: string; client: string; from: string; to: string; errors: boolean };
const NONE: Filter = { q: '', tool: '', client: '', from: '', to: '', errors: false };
const PAGE = 50;
/** Live events within this long of each other are applied together. */
const COALESCE_MS = 200;

function bounds(f: Filter): { from?: number; to?: number } {
  return { ...(f.from ? { from: new Date(`${f.from}T00:00`).getTime() } : {}), ...(f.to ? { to: new Date(`${f.to}T00:00`).getTime() + 86_400_000 } : {}) };
}

function query(f: Filter, before: string | undefined): string {
  const p = new URLSearchParams({ limit: String(PAGE) });
  if (before) p.set('before', before);
  if (f.q) p.set('q', f.q);
  if (f.tool) p.set('tool', f.tool);
  if (f.client) p.set('client', f.client);
  if (f.errors) p.set('errors', '1');
  const b = bounds(f);
  if (b.from !== undefined) p.set('from', String(b.from));
  if (b.to !== undefined) p.set('to', String(b.to));
  return p.toString();
}

/** The hub's filter (store/activity.ts), for a call a live event brought. */
function matches(c: CallRecord, f: Filter): boolean {
  const b = bounds(f);
  if (f.tool && c.tool !== f.tool) return false;
  if (f.client && c.client !== f.client) return false;
  if (f.errors && !c.isError) return false;
  if (b.from !== undefined && c.started < b.from) return false;
  if (b.to !== undefined && c.started >= b.to) return false;
  if (f.q && !`${c.tool} ${c.args} ${c.summary ?? ''} ${c.client ?? ''}`.toLowerCase().includes(f.q.toLowerCase())) return false;
  return true;
}

/** A call's detail, opened in place under its row: where the person clicked, not at the top of the page. */
function Detail(props: { id: string; onClose(): void }) {
  const [call, setCall] = useState<CallRecord>();
  const [problem, setProblem] = useState<string>();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    api<{ call: CallRecord }>(`/api/activity/${encodeURIComponent(props.id)}`).then((r) => setCall(r.call), (err: unknown) => setProblem(describeError(err)));
  }, [props.id]);
  return (
    <div class="detail" ref={box} role="region" aria-label="Call detail">
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
    </div>
  );
}

/** A call as a live event describes it (started, or finished with its result). */
function fromEvent(e: StreamEvent, known: CallRecord | undefined): CallRecord | undefined {
  if (e.type === 'tool_call_started') return { id: e.id, tool: e.tool, session: e.session, client: e.client, args: e.args, started: e.at };
  if (e.type === 'tool_call_finished' && known) return { ...known, ms: e.ms, isError: e.isError, summary: e.summary };
  return undefined;
}

/**
 * Every call, a page at a time (Older pages from where the last ended, so a page deep in a long history
 * costs what the first does), with the total that matches. Live calls are put on the first page from the
 * events themselves; the list is not read again for them.
 */
export function ActivityPage(props: PageProps) {
  const [filter, setFilter] = useState<Filter>(NONE);
  const [draft, setDraft] = useState<Filter>(NONE);
  const [selected, setSelected] = useState<string>();
  /** Cursors of the pages before this one: Newer goes back through them. */
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [data, setData] = useState<ActivityView>();
  const [facets, setFacets] = useState<FacetsView>();
  const [error, setError] = useState<string>();
  const now = useNow(5000);
  const before = cursors.at(-1);
  const first = cursors.length === 1;
  const ctx = useRef({ filter, first, facets });
  ctx.current = { filter, first, facets };
  const facetsLack = (tool: string, client: string | undefined) => {
    const f = ctx.current.facets;
    return Boolean(f && (!f.tools.includes(tool) || (client && !f.clients.includes(client))));
  };

  useEffect(() => {
    let alive = true;
    const fail = (err: unknown) => {
      if (!alive) return;
      if (err instanceof Unauthorized) props.onSignedOut();
      else if (!isHubUnreachable(err)) setError(describeError(err));
    };
    const load = () => api<ActivityView>(`/api/activity?${query(filter, before)}`).then((d) => alive && (setData(d), setError(undefined)), fail);
    const loadFacets = () => api<FacetsView>('/api/activity/facets').then((f) => alive && setFacets(f), fail);
    load();
    loadFacets();
    const offEpoch = onEpoch(() => (load(), loadFacets()));
    // Calls arrive in bursts: their events are applied together, at most every COALESCE_MS, so that the
    // page renders once per burst rather than once per event.
    let queued: StreamEvent[] = [];
    let timer = 0;
    const applyQueued = () => {
      timer = 0;
      const events = queued;
      queued = [];
      setData((d) => (d ? events.reduce(applyEvent, d) : d));
    };
    const applyEvent = (d: ActivityView, e: StreamEvent): ActivityView => {
      if (e.type !== 'tool_call_started' && e.type !== 'tool_call_finished') return d;
      const known = d.calls.find((c) => c.id === e.id);
      const call = fromEvent(e, known);
      if (!call) return d;
      if (known) return { ...d, calls: d.calls.map((c) => (c.id === e.id ? call : c)) };
      // A new call is the newest: only the first page shows it, and only when it passes the filter.
      if (!ctx.current.first || !matches(call, ctx.current.filter)) return d;
      const calls: ActivityView['calls'] = [call, ...d.calls].slice(0, PAGE);
      // Older pages on from the last call still shown (the ones pushed off are the next page's first).
      const lastKept = [...calls].reverse().find((c) => c.cursor);
      const next = d.calls.length > calls.length - 1 ? (lastKept?.cursor ?? d.next) : d.next;
      return { ...d, calls, next, total: d.total + 1 };
    };
    const offEvent = onHubEvent((e) => {
      if (e.type === 'records_pruned' && e.activity > 0) return void load();
      if (e.type !== 'tool_call_started' && e.type !== 'tool_call_finished') return;
      if (e.type === 'tool_call_started' && facetsLack(e.tool, e.client)) {
        // A tool or client the choices do not have yet joins them.
        setFacets((f) => f && { tools: f.tools.includes(e.tool) ? f.tools : [...f.tools, e.tool].sort(), clients: !e.client || f.clients.includes(e.client) ? f.clients : [...f.clients, e.client].sort() });
      }
      queued.push(e);
      timer ||= window.setTimeout(applyQueued, COALESCE_MS);
    });
    return () => {
      alive = false;
      window.clearTimeout(timer);
      offEpoch();
      offEvent();
    };
  }, [filter, before]);

  const set = (k: keyof Filter, v: string | boolean) => setDraft({ ...draft, [k]: v });
  const applyFilter = (next: Filter) => {
    setFilter(next);
    setCursors([undefined]);
    setSelected(undefined);
  };
  /** Choices (tool, client, errors only) apply at once; typed fields wait for Enter or Apply. */
  const apply = (k: keyof Filter, v: string | boolean) => {
    const next = { ...draft, [k]: v };
    setDraft(next);
    applyFilter(next);
  };
  const pageStart = (cursors.length - 1) * PAGE;
  return (
    <>
      <form
        class="panel filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          applyFilter(draft);
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
            {(facets?.tools ?? []).map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          <span>Client</span>
          <select id="activity-client" value={draft.client} onChange={(e) => apply('client', (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">all</option>
            {(facets?.clients ?? []).map((c) => (
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
      <Problem text={error} />
      <Panel>
        {!data ? (
          <p class="muted">Loading…</p>
        ) : data.calls.length === 0 ? (
          <Empty title="No tool calls match">Every call a client makes is listed here: when, which client, which tool, how long it took and what came back.</Empty>
        ) : (
          <ul class="activity" aria-label="Tool calls, newest first">
            {data.calls.map((c) => (
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
                {selected === c.id ? <Detail key={c.id} id={c.id} onClose={() => setSelected(undefined)} /> : null}
              </li>
            ))}
          </ul>
        )}
        {data ? (
          <nav class="row pager" aria-label="Pages of tool calls">
            <button type="button" disabled={first} onClick={() => (setCursors(cursors.slice(0, -1)), setSelected(undefined))}>
              Newer
            </button>
            <span class="muted" data-pager="calls">
              Calls {data.calls.length ? `${(pageStart + 1).toLocaleString()}–${(pageStart + data.calls.length).toLocaleString()}` : 'none'} of {data.total.toLocaleString()}
              {data.capped ? '+' : ''}
            </span>
            <button type="button" disabled={!data.next} onClick={() => (setCursors([...cursors, data.next ?? undefined]), setSelected(undefined))}>
              Older
            </button>
          </nav>
        ) : null}
      </Panel>
      <Kept kinds={['activity']} onSignedOut={props.onSignedOut} />
    </>
  );
}
