import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { useResource } from '../hooks.js';
import { Empty, Panel, Problem, Switch, announce, Pending } from '../ui.js';
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
            <Switch
              checked={k.enabled}
              label={`${k.name} enabled`}
              onChange={async (on) => {
                try {
                  await api(`/api/skills/${encodeURIComponent(k.name)}`, { body: { enabled: on } });
                  announce(`${k.name} ${on ? 'on' : 'off'}`);
                } catch (err) {
                  setProblem(describeError(err));
                }
              }}
            />
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
