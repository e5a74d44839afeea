import { useState } from 'preact/hooks';
import { api, describeError, ApiError } from '../api.js';
import { useResource } from '../hooks.js';
import { Panel, Problem, Switch, announce, Pending } from '../ui.js';
import type { PageProps, SettingView, SettingsPageView } from '../types.js';
import { TokenField } from './token.js';

type Settings = SettingsPageView;

const GROUPS: [string, string][] = [
  ['serving', 'Serving'],
  ['http', 'HTTP hub'],
  ['shell', 'Shell and jobs'],
  ['workflow', 'Workflow'],
  ['web', 'Web and search'],
  ['desktop', 'Desktop app'],
  ['general', 'General'],
];

/** What a project's `.pincer/pincer-env.txt` may do with a key (ARCHITECTURE §5), in a few words. */
const TRUST: Record<SettingView['trust'], string> = {
  user: 'your file only',
  lower: 'projects may lower',
  toward: 'projects may only narrow',
  subset: 'projects may narrow the list',
  project: '',
};

/**
 * A secret (an API key): the settings page never receives its value. The field starts empty; Show
 * asks the hub for this one key, Set saves what was typed (leaving it untouched keeps the value).
 */
function SecretField(props: { k: SettingView; id: string; invalid: boolean; describedBy?: string; save(v: string): Promise<boolean> }) {
  const { k, id } = props;
  const [draft, setDraft] = useState<string>();
  const [revealed, setRevealed] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const isSet = k.secret?.isSet ?? false;
  const hide = () => {
    if (draft === revealed) setDraft(undefined);
    setRevealed(undefined);
  };
  return (
    <div>
      <form
        class="row nowrap"
        onSubmit={async (e) => {
          e.preventDefault();
          const field = (e.currentTarget as HTMLFormElement).elements.namedItem(id);
          const v = field instanceof HTMLInputElement ? field.value : (draft ?? '');
          if (draft === undefined && v === '') return announce(`${k.key} unchanged`);
          if (await props.save(v)) {
            setDraft(undefined);
            setRevealed(undefined);
          }
        }}
      >
        {(() => {
          const common = {
            id,
            name: id,
            'data-key': k.key,
            class: 'mono grow',
            autocomplete: 'off',
            spellcheck: false,
            value: draft ?? '',
            placeholder: isSet ? '•••••••• set (Show reveals it)' : 'not set',
            'aria-invalid': props.invalid,
            'aria-describedby': props.describedBy,
            onInput: (e: Event) => setDraft((e.currentTarget as HTMLInputElement).value),
          };
          return revealed !== undefined ? <input type="text" {...common} /> : <input type="password" {...common} />;
        })()}
        {isSet ? (
          <button
            type="button"
            aria-pressed={revealed !== undefined}
            onClick={async () => {
              if (revealed !== undefined) return hide();
              try {
                const r = await api<{ value: string }>(`/api/settings/secret/${encodeURIComponent(k.key)}`);
                setRevealed(r.value);
                setDraft(r.value);
                setProblem(undefined);
              } catch (err) {
                setProblem(describeError(err));
              }
            }}
          >
            {revealed !== undefined ? 'Hide' : 'Show'}
          </button>
        ) : null}
        <button type="submit">Set</button>
      </form>
      <Problem text={problem} />
    </div>
  );
}

/** One setting with the control its type calls for; its error stays beside it until fixed. */
function Field(props: { k: SettingView; onSignedOut(): void }) {
  const { k } = props;
  const [draft, setDraft] = useState<string>();
  const [error, setError] = useState<string>();
  const value = draft ?? k.value;
  const id = `setting-${k.key}`;
  const errId = `${id}-error`;
  const save = async (v: string): Promise<boolean> => {
    try {
      await api('/api/settings/key', { body: { key: k.key, value: v } });
      setError(undefined);
      setDraft(undefined);
      announce(`${k.key} saved`);
      return true;
    } catch (err) {
      setError(err instanceof ApiError ? err.message : describeError(err));
      return false;
    }
  };
  const c = k.control;
  let control;
  if (c.kind === 'secret' && k.key === 'AUTH_TOKEN') control = <TokenField id={id} onSignedOut={props.onSignedOut} />;
  else if (c.kind === 'secret') control = <SecretField k={k} id={id} invalid={Boolean(error)} describedBy={error ? errId : undefined} save={save} />;
  else if (c.kind === 'switch') {
    // Shown as switched at once: a render before the hub confirms (a live update of the page) must not flip it back.
    const flip = (on: boolean) => {
      setDraft(on ? 'true' : 'false');
      void save(on ? 'true' : 'false').then((ok) => ok || setDraft(undefined));
    };
    control = <Switch id={id} checked={/^(true|1|yes|on)$/i.test(value)} label={k.key} onChange={flip} />;
  }
  else if (c.kind === 'choice')
    control = (
      <select id={id} data-key={k.key} value={value} aria-invalid={Boolean(error)} aria-describedby={error ? errId : undefined} onChange={(e) => void save((e.currentTarget as HTMLSelectElement).value)}>
        {c.options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    );
  else
    control = (
      <form
        class="row nowrap"
        onSubmit={(e) => {
          e.preventDefault();
          // What the field holds now, not what this render saw: a submit can come before the re-render of the last keystroke.
          const field = (e.currentTarget as HTMLFormElement).elements.namedItem(id);
          void save(field instanceof HTMLInputElement ? field.value : value);
        }}
      >
        {(() => {
          const common = {
            id,
            name: id,
            'data-key': k.key,
            class: c.kind === 'path' ? 'mono grow' : 'grow',
            autocomplete: 'off',
            spellcheck: false,
            value,
            placeholder: k.default || undefined,
            'aria-invalid': Boolean(error),
            'aria-describedby': error ? errId : undefined,
            onInput: (e: Event) => setDraft((e.currentTarget as HTMLInputElement).value),
          };
          if (c.kind === 'number') return <input type="number" inputMode="numeric" {...common} />;
          return <input type="text" {...common} />;
        })()}
        {c.kind === 'number' && c.unit ? <span class="unit">{c.unit}</span> : null}
        <button type="submit">Set</button>
      </form>
    );
  return (
    <div class="setting" data-setting={k.key}>
      <div class="setting-head">
        <label for={id}>
          <code>{k.key}</code>
        </label>
        <span class="muted">{k.source === 'default' ? 'default' : `from ${k.source}`}</span>
        {TRUST[k.trust] ? <span class="tag">{TRUST[k.trust]}</span> : null}
      </div>
      <p class="muted">{k.description}</p>
      {control}
      {error ? (
        <p class="problem" id={errId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function FileEditor(props: { s: Settings }) {
  const [text, setText] = useState<string>();
  const [errors, setErrors] = useState<string[]>([]);
  const [refused, setRefused] = useState<string>();
  return (
    <Panel title={`Edit ${props.s.file} as text`}>
      <p class="muted">Comments, blank lines and order are kept. Changes apply at once, without a restart.</p>
      <textarea id="settings-file" aria-label={`Contents of ${props.s.file}`} spellcheck={false} value={text ?? props.s.text} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
      <div class="row">
        <button
          class="primary"
          id="save-settings"
          type="button"
          onClick={async () => {
            try {
              await api('/api/settings/file', { method: 'PUT', body: { text: text ?? props.s.text } });
              setText(undefined);
              setErrors([]);
              setRefused(undefined);
              announce('Settings saved and applied');
            } catch (err) {
              // A refused save changed nothing: said first, then what to fix (the file keeps its old values meanwhile).
              const lines = err instanceof ApiError ? ((err.data as { errors?: { line: number; message: string }[] }).errors ?? []) : [];
              setRefused(lines.length ? `Nothing was saved: ${lines.length === 1 ? '1 line needs' : `${lines.length} lines need`} fixing.` : undefined);
              setErrors(lines.length ? lines.map((l) => `line ${l.line}: ${l.message}`) : [describeError(err)]);
            }
          }}
        >
          Save file
        </button>
      </div>
      {errors.length ? (
        <div role="alert">
          {refused ? <p class="problem">{refused}</p> : null}
          <ul class="diag">
          {errors.map((e) => (
            <li class="err" key={e}>
              {e}
            </li>
          ))}
          </ul>
        </div>
      ) : null}
    </Panel>
  );
}

export function SettingsPage(props: PageProps) {
  const r = useResource<Settings>('/api/settings', ['settings_changed'], props.onSignedOut);
  if (!r.data) return <Pending error={r.error} />;
  const s = r.data;
  return (
    <>
      <Problem text={r.error} />
      {s.diagnostics.length ? (
        <Panel title="Problems in the settings files">
          <ul class="diag">
            {s.diagnostics.map((d) => (
              <li key={`${d.file}:${d.line}:${d.message}`} class={d.severity === 'error' ? 'err' : 'warn'}>
                {/* The user's own file goes without saying; a project's file is named. */}
                {d.file === s.file ? '' : <span class="wrap">{d.file} </span>}
                {d.line ? `line ${d.line}: ` : ''}
                {d.message}
                {d.suggestion ? (
                  <>
                    {' '}
                    — did you mean <code>{d.suggestion}</code>?
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </Panel>
      ) : null}
      <nav class="panel toc" aria-label="Setting groups">
        {GROUPS.map(([g, title]) => (
          <a key={g} href={`#/settings`} onClick={(e) => (e.preventDefault(), document.getElementById(`group-${g}`)?.scrollIntoView())}>
            {title}
          </a>
        ))}
      </nav>
      {GROUPS.map(([g, title]) => (
        <section class="panel" id={`group-${g}`} key={g} aria-labelledby={`group-${g}-title`}>
          <h2 id={`group-${g}-title`}>{title}</h2>
          <div class="settings-grid">
            {s.keys
              .filter((k) => k.group === g)
              .map((k) => (
                <Field key={k.key} k={k} onSignedOut={props.onSignedOut} />
              ))}
          </div>
        </section>
      ))}
      <Panel title="Families of keys">
        <ul>
          {s.patterns.map((p) => (
            <li key={p.pattern}>
              <code>{p.pattern}</code> — {p.description}
            </li>
          ))}
        </ul>
      </Panel>
      <FileEditor s={s} />
    </>
  );
}
