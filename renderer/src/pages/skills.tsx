import { useState } from 'preact/hooks';
import { useResource } from '../hooks.js';
import { Empty, EnabledSwitch, Panel, Problem, Pending } from '../ui.js';
import type { PageProps, SkillsView } from '../types.js';


export function SkillsPage(props: PageProps) {
  const r = useResource<SkillsView>('/api/skills', ['skills_changed', 'settings_changed'], props.onSignedOut);
  const [problem, setProblem] = useState<string>();
  if (!r.data) return <Pending error={r.error} />;
  const s = r.data;
  return (
    <>
      <Problem text={problem ?? r.error} />
      {s.skills.length ? (
        s.skills.map((k) => (
          <section class="panel row" key={k.name}>
            <EnabledSwitch name={k.name} checked={k.enabled} path={`/api/skills/${encodeURIComponent(k.name)}`} onProblem={setProblem} />
            <div class="grow">
              <strong>{k.name}</strong>
              <div>{k.description}</div>
              <div class="muted wrap">{k.folder}</div>
            </div>
          </section>
        ))
      ) : (
        <Panel>
          <Empty title="No skills installed">A skill is a folder with a SKILL.md (YAML front matter with name and description, then instructions). Put one in any folder below.</Empty>
        </Panel>
      )}
      {s.problems.length ? (
        <Panel title="Problems">
          <ul class="diag">
            {s.problems.map((p) => (
              <li class="err" key={`${p.file}:${p.line}`}>
                {p.file}:{p.line}: {p.message}
              </li>
            ))}
          </ul>
        </Panel>
      ) : null}
      <Panel title="Searched folders, first wins">
        <ol>
          {s.folders.map((f) => (
            <li key={f}>
              <code class="wrap">{f}</code>
            </li>
          ))}
        </ol>
      </Panel>
    </>
  );
}
