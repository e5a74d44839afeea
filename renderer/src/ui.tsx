import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from './api.js';

export function Empty(props: { title: string; children: ComponentChildren }) {
  return (
    <div class="empty">
      <strong>{props.title}</strong>
      {props.children}
    </div>
  );
}

export function Panel(props: { title?: string; children: ComponentChildren; class?: string }) {
  return (
    <section class={`panel ${props.class ?? ''}`}>
      {props.title ? <h2>{props.title}</h2> : null}
      {props.children}
    </section>
  );
}

import { Problem } from './problem.js';

export { Problem };

/** A checkbox drawn as a switch; native, so keyboard and screen readers work as they do for any checkbox. */
export function Switch(props: { checked: boolean; label: string; onChange(on: boolean): void; id?: string }) {
  return <input type="checkbox" role="switch" class="switch" id={props.id} aria-label={props.label} checked={props.checked} onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)} />;
}

/** The on/off switch of a named thing (a tool, a skill) saved as `{enabled}` to `path`: announced when saved, else reported. */
export function EnabledSwitch(props: { name: string; checked: boolean; path: string; onProblem(text: string): void }) {
  return (
    <Switch
      checked={props.checked}
      label={`${props.name} enabled`}
      onChange={async (on) => {
        try {
          await api(props.path, { body: { enabled: on } });
          announce(`${props.name} ${on ? 'on' : 'off'}`);
        } catch (err) {
          props.onProblem(describeError(err));
        }
      }}
    />
  );
}

type Announce = (text: string) => void;
let announceTo: Announce = () => undefined;

/** Says a short summary in the polite live region (and shows it briefly as a toast). */
export function announce(text: string): void {
  announceTo(text);
}

export function Announcer() {
  const [text, setText] = useState('');
  const [shown, setShown] = useState(false);
  useEffect(() => {
    let t: number | undefined;
    announceTo = (s) => {
      setText(s);
      setShown(true);
      window.clearTimeout(t);
      t = window.setTimeout(() => setShown(false), 4000);
    };
    return () => window.clearTimeout(t);
  }, []);
  return (
    <div id="toast" class={shown ? 'show' : ''} role="status" aria-live="polite">
      {text}
    </div>
  );
}

/**
 * A button that asks before it acts: a native modal <dialog> (focus moves into
 * it, Escape cancels), for Kill, Cancel, Decline, Rotate and Sign out.
 */
export function ConfirmButton(props: { label: string; question: string; confirm: string; onConfirm(): void | Promise<void>; class?: string; detail?: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" class={props.class} onClick={() => dialog.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={dialog} class="confirm" aria-label={props.question}>
        <form
          method="dialog"
          onSubmit={(e) => {
            const submitter = (e as SubmitEvent).submitter as HTMLButtonElement | null;
            if (submitter?.value === 'yes') void props.onConfirm();
          }}
        >
          <p>
            <strong>{props.question}</strong>
          </p>
          {props.detail ? <p class="muted">{props.detail}</p> : null}
          <div class="row end">
            <button type="submit" value="no" autofocus>
              Keep
            </button>
            <button type="submit" value="yes" class="primary danger-fill">
              {props.confirm}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

/** A page whose data has not come yet: a calm line, or what went wrong (never a raw exception). */
export function Pending(props: { error: string | undefined }) {
  return props.error ? <Problem text={props.error} /> : <p class="muted">Loading…</p>;
}

/**
 * A path or URL that may wrap at its separators (after a slash, backslash, dot, underscore, hyphen or
 * colon) rather than inside a word: a long one on a phone breaks at "/" instead of "ap|i".
 */
export function Breakable(props: { text: string }) {
  const parts = props.text.split(/(?<=[/\\._:-])/);
  return <>{parts.map((p, i) => (i ? [<wbr key={`w${i}`} />, p] : p))}</>;
}
