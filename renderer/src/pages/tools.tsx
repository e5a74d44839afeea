import { useMemo, useState } from 'preact/hooks';
import type { AlignedData } from 'uplot';
import { useResource } from '../hooks.js';
import { Chart } from '../chart.js';
import { EnabledSwitch, Panel, Problem, Pending } from '../ui.js';
import type { MinutesView, PageProps, ToolsView } from '../types.js';
import { EnginesPanel } from './engines.js';

function ms(v: number | undefined): string {
  return v === undefined ? '–' : `${v} ms`;
}

export function ToolsPage(props: PageProps) {
  const tools = useResource<ToolsView>('/api/tools', ['tools_changed', 'tool_call_finished', 'skills_changed', 'settings_changed', 'plugins_changed'], props.onSignedOut);
  const stats = useResource<MinutesView>('/api/stats/minutes', ['tool_call_finished'], props.onSignedOut);
  const [problem, setProblem] = useState<string>();
  const minutes = stats.data?.minutes ?? [];
  const spark = useMemo(() => {
    const x = minutes.map((b) => b.at / 1000);
    return (tool: string): AlignedData => [x, minutes.map((b) => b.perTool[tool]?.calls ?? 0)];
  }, [minutes]);
  if (!tools.data) return <Pending error={tools.error} />;
  return (
    <>
      {tools.data.serving ? null : <div class="panel warn">Serving is paused: no tool is offered to clients until it is resumed on the Overview page.</div>}
      <Problem text={problem ?? tools.error} />
      <div class="tools">
        {tools.data.tools.map((t) => (
          <section class="panel tool" data-tool={t.name} key={t.name}>
            <div class="row">
              <EnabledSwitch name={t.name} checked={t.enabled} path={`/api/tools/${encodeURIComponent(t.name)}`} onProblem={setProblem} />
              <h2>{t.name}</h2>
              <span class="tag">{t.group}</span>
            </div>
            <p>{t.description ?? ''}</p>
            <div class="tool-stats">
              <Chart spark data={spark(t.name)} series={[{ label: 'calls', colorVar: '--accent' }]} height={36} label={`${t.name}: calls per minute over the last hour`} />
              <span class="muted">
                {t.stats.calls} calls · {t.stats.errors} errors · median {ms(t.stats.medianMs)} · p95 {ms(t.stats.p95Ms)}
              </span>
            </div>
            <details>
              <summary>Input schema</summary>
              <pre>{JSON.stringify(t.inputSchema, null, 2)}</pre>
            </details>
          </section>
        ))}
      </div>
      <PluginsPanel plugins={tools.data.plugins} />
      <EnginesPanel onSignedOut={props.onSignedOut} />
    </>
  );
}

/**
 * The user's plugin files: what each adds, each problem with its file and line (a broken file loads
 * nothing), what the file turns off itself, and why a module plugin was disabled.
 */
function PluginsPanel(props: { plugins: ToolsView['plugins'] }) {
  if (props.plugins.length === 0) return null;
  return (
    <Panel title="Plugins">
      <ul class="plugins">
        {props.plugins.map((p) => (
          <li key={p.file} data-plugin={p.file}>
            <code>{p.file}</code> <span class="tag">{p.kind === 'command' ? 'command tool' : 'module'}</span>
            <span class="muted"> {[...p.tools, ...p.prompts, ...p.resources].join(', ') || 'adds nothing'}</span>
            {p.disabled ? <div class="warn plugin-disabled">Disabled: {p.disabled}</div> : null}
            {p.off.length ? <div class="muted">Off in its file (enabled: false): {p.off.join(', ')}</div> : null}
            {p.problems.map((x, i) => (
              <div class="warn" key={i}>
                line {x.line}: {x.message}
              </div>
            ))}
          </li>
        ))}
      </ul>
    </Panel>
  );
}
