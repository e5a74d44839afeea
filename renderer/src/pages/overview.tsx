import { useMemo, useState } from 'preact/hooks';
import type { AlignedData } from 'uplot';
import { api, describeError } from '../api.js';
import { useNow, useResource } from '../hooks.js';
import { Chart } from '../chart.js';
import { Breakable, Empty, Panel, Pending, Problem, Switch, announce } from '../ui.js';
import { ago, axisMs, duration } from '../format.js';
import type { MinuteBucket, MinutesView, PageProps } from '../types.js';
import { TokenField } from './token.js';

/** Calls per minute over the last hour: one point a minute. */
export function callsSeries(m: MinuteBucket[]): AlignedData {
  return [m.map((b) => b.at / 1000), m.map((b) => b.calls)];
}

function latencySeries(m: MinuteBucket[], tool: string): AlignedData {
  const pick = (b: MinuteBucket, k: 'p50' | 'p95') => {
    if (tool) return b.perTool[tool]?.[k] ?? null;
    const all = Object.values(b.perTool);
    return all.length ? Math.max(...all.map((t) => t[k])) : null;
  };
  return [m.map((b) => b.at / 1000), m.map((b) => pick(b, 'p50')), m.map((b) => pick(b, 'p95'))];
}

export function Charts(props: PageProps) {
  const stats = useResource<MinutesView>('/api/stats/minutes', ['tool_call_finished'], props.onSignedOut);
  const [tool, setTool] = useState('');
  const minutes = stats.data?.minutes ?? [];
  const tools = useMemo(() => [...new Set(minutes.flatMap((b) => Object.keys(b.perTool)))].sort(), [minutes]);
  const calls = useMemo(() => callsSeries(minutes), [minutes]);
  const latency = useMemo(() => latencySeries(minutes, tool), [minutes, tool]);
  const total = minutes.reduce((n, b) => n + b.calls, 0);
  return (
    <div class="grid2">
      <Panel title="Calls per minute, last hour">
        <p class="muted" data-testid="calls-total">
          {total} call{total === 1 ? '' : 's'} in the last hour
        </p>
        <Chart data={calls} whole series={[{ label: 'calls', colorVar: '--accent' }]} height={160} label={`Calls per minute over the last hour: ${total} in all`} />
      </Panel>
      <Panel title="Latency, last hour">
        <label class="row">
          <span>Tool</span>
          <select value={tool} onChange={(e) => setTool((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">slowest of all tools</option>
            {tools.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <Chart data={latency} series={[{ label: 'p50', colorVar: '--ok', points: true }, { label: 'p95', colorVar: '--warn', dash: [6, 4], points: true }]} height={160} format={axisMs} label={`Latency per minute (median and 95th percentile) of ${tool || 'the slowest tool'}`} />
      </Panel>
    </div>
  );
}

export function OverviewPage(props: PageProps) {
  const o = props.overview;
  const now = useNow(5000);
  const [problem, setProblem] = useState<string>();
  if (!o) return <Pending error={undefined} />;
  const counters: [string, number, string][] = [
    ['Running jobs', o.counts.jobsRunning, '#/jobs'],
    ['Waiting questions', o.counts.questionsPending, '#/questions'],
    ['Active callbacks', o.counts.callbacks, '#/callbacks'],
    ['Tools offered', o.counts.tools, '#/tools'],
  ];
  return (
    <>
      <ul class="counters" aria-label="At a glance">
        {counters.map(([label, n, href]) => (
          <li key={label}>
            <a href={href} class="counter">
              <span class="count">{n}</span>
              <span>{label}</span>
            </a>
          </li>
        ))}
      </ul>
      <Panel>
        <div class="row">
          <Switch
            id="serving-switch"
            checked={o.serving}
            label="Serve MCP tools"
            onChange={async (on) => {
              try {
                await api('/api/serving', { body: { on } });
                announce(on ? 'Serving resumed' : 'Serving paused');
              } catch (err) {
                setProblem(describeError(err));
              }
            }}
          />
          <label for="serving-switch">
            <strong>{o.serving ? 'Serving MCP tools' : 'Serving is paused'}</strong>
          </label>
          <span class="muted">{o.serving ? 'Clients see and call the enabled tools.' : 'tools/list is empty and calls are refused until resumed.'}</span>
        </div>
        <Problem text={problem} />
      </Panel>
      <Charts {...props} />
      <div class="grid2">
        <Panel title="Token">
          <TokenField onSignedOut={props.onSignedOut} />
        </Panel>
        <Panel title="Endpoints">
          <dl class="endpoints">
            {Object.entries(o.endpoints).map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>
                  <code>
                    <Breakable text={v} />
                  </code>
                </dd>
              </div>
            ))}
          </dl>
        </Panel>
      </div>
      <Panel title={`Connected MCP sessions (${o.sessions.length})`}>
        {o.sessions.length === 0 ? (
          <Empty title="No client is connected yet">
            Connect Claude Desktop, Claude Code, Cursor or VS Code on the <a href="#/connect">Connect</a> page (or the tray menu, or "pincer connect &lt;client&gt;" in a terminal). Then ask it to run a command.
          </Empty>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Client</th>
                  <th>Transport</th>
                  <th>Since</th>
                  <th>Last seen</th>
                </tr>
              </thead>
              <tbody>
                {o.sessions.map((s) => (
                  <tr key={s.id}>
                    <td>{s.client ?? 'unknown'}</td>
                    <td>{s.transport}</td>
                    <td>{ago(s.created, now)}</td>
                    <td>{ago(s.lastSeen, now)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
      <Panel title="Recent calls">
        {o.recent.length === 0 ? (
          <p class="muted">No tool calls yet.</p>
        ) : (
          <ul class="calls">
            {o.recent.map((c) => (
              <li key={c.id}>
                <span class="muted">{ago(c.started, now)}</span> <strong>{c.tool}</strong> <span class="muted">{c.client ?? ''}</span> <span class={c.isError ? 'err' : ''}>{c.ms === undefined ? 'running…' : duration(c.ms)}</span>
              </li>
            ))}
          </ul>
        )}
      </Panel>
      <p class="muted wrap">
        Data: <Breakable text={o.home} /> · Settings: <Breakable text={o.settingsFile} /> · Commands run in {o.shell.runs ?? 'no shell'}
      </p>
      {o.shell.problem || o.shell.skipped.length > 0 ? (
        <ul class="warn wrap">
          {o.shell.problem ? <li>{o.shell.problem}</li> : null}
          {o.shell.skipped.map((s) => (
            <li key={s.file}>
              {s.name} (<Breakable text={s.file} />) was skipped: {s.why}
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
