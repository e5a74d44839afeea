import { useEffect, useRef, useState } from 'preact/hooks';
import type { PincerDesktopApi } from '../../main/desktop/channels.js';
import { api, setSessionKey, signIn, signOut, describeError } from './api.js';
import { connectLive } from './live.js';
import { useReachable, useResource } from './hooks.js';
import { Announcer, ConfirmButton } from './ui.js';
import type { Overview } from './types.js';
import { PAGES, type PageId } from './pages/index.js';

declare global {
  interface Window {
    pincerDesktop?: PincerDesktopApi;
  }
}

function currentPage(): PageId {
  const id = location.hash.replace(/^#\/?/, '');
  return (PAGES.find((p) => p.id === id)?.id ?? 'overview') as PageId;
}

function SignIn(props: { onSignedIn(): void; ended: boolean }) {
  const [message, setMessage] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <main id="main" class="signin" tabIndex={-1}>
      <form
        class="panel login"
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            await signIn(input.current!.value.trim());
            props.onSignedIn();
          } catch (err) {
            setMessage(describeError(err));
          }
        }}
      >
        <h1>Sign in to Pincer</h1>
        {props.ended ? (
          <p class="muted" id="session-ended">
            You are signed out. A dashboard session ends on Sign out, after 2 hours without use, 24 hours after signing in, and when the token changes.
          </p>
        ) : null}
        <label for="token">Hub token</label>
        <div class="row">
          <input ref={input} type="password" id="token" autocomplete="current-password" aria-describedby="token-help" required />
          <button class="primary" type="submit">
            Sign in
          </button>
        </div>
        <p id="token-help" class="muted">
          Run <code>pincer token</code> in a terminal to print it (<code>npx pincer token</code> in a Pincer checkout), or read <code>AUTH_TOKEN</code> in <code>~/.pincer/pincer-env.txt</code>. Signing in gives this browser a session of its own; the token is not stored.
        </p>
        <p class="problem" role="alert">
          {message}
        </p>
      </form>
    </main>
  );
}

function Shell(props: { onSignedOut(): void }) {
  const [page, setPage] = useState<PageId>(currentPage());
  const reachable = useReachable();
  const overview = useResource<Overview>('/api/overview', ['question_*', 'job_started', 'job_ended', 'tools_changed', 'settings_changed', 'callback*', 'session_*'], props.onSignedOut);
  const main = useRef<HTMLElement>(null);
  useEffect(() => connectLive(props.onSignedOut), []);
  useEffect(() => {
    const onHash = () => {
      setPage(currentPage());
      // Each page opens at its top, and keyboard focus moves to its content.
      window.scrollTo(0, 0);
      main.current?.focus({ preventScroll: true });
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const def = PAGES.find((p) => p.id === page)!;
  useEffect(() => {
    document.title = `${def.title} — Pincer`;
  }, [def.title]);
  const o = overview.data;
  const badge = (id: PageId) => (id === 'questions' ? o?.counts.questionsPending : id === 'jobs' ? o?.counts.jobsRunning : 0) ?? 0;
  const Page = def.component;
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          // The hash routes pages, so the skip link moves focus itself instead of navigating.
          e.preventDefault();
          main.current?.focus();
        }}
      >
        Skip to content
      </a>
      <div class="shell">
        <nav class="sidebar" aria-label="Pages">
          <div class="brand">
            <img src="/icon.svg" alt="" width="24" height="24" /> <span>Pincer</span>
          </div>
          <ul class="nav">
            {PAGES.filter((p) => !('hidden' in p)).map((p) => (
              <li key={p.id}>
                <a href={`#/${p.id}`} aria-current={p.id === page ? 'page' : undefined}>
                  <span>{p.title}</span>
                  {badge(p.id) ? (
                    <span class="badge" aria-label={`${badge(p.id)} waiting`}>
                      {badge(p.id)}
                    </span>
                  ) : null}
                </a>
              </li>
            ))}
          </ul>
          <div class="sidebar-foot">
            <div class={`status ${!reachable ? 'down' : o?.serving === false ? 'paused' : 'serving'}`} id="serving-status">
              <span class="dot" aria-hidden="true" />
              {!reachable ? 'Hub unreachable' : o ? (o.serving ? 'Serving' : 'Paused') : '…'}
              {o ? <span class="muted"> · v{o.version}</span> : null}
            </div>
            <ConfirmButton
              label="Sign out"
              question="Sign out of this dashboard?"
              confirm="Sign out"
              class="signout"
              onConfirm={async () => {
                await signOut();
                props.onSignedOut();
              }}
            />
          </div>
        </nav>
        <div class="content">
          {!reachable ? (
            <div class="banner" role="alert">
              <strong>The hub is not answering.</strong> Pincer may have stopped or be restarting. This page reconnects by itself; start it with <code>pincer serve</code> or the tray app.
            </div>
          ) : null}
          <main id="main" ref={main} tabIndex={-1}>
            <h1>{def.title}</h1>
            <Page key={page} onSignedOut={props.onSignedOut} overview={o} />
          </main>
        </div>
      </div>
      <Announcer />
    </>
  );
}

type State = 'checking' | 'signed-in' | 'signed-out';

export function App() {
  const [state, setState] = useState<State>('checking');
  const [ended, setEnded] = useState(false);
  const check = async () => {
    try {
      const signedIn = async () => (await api<{ signedIn: boolean }>('/api/session')).signedIn;
      let ok = await signedIn();
      if (!ok && window.pincerDesktop) {
        // The desktop window signs itself in (again, after a sign-out or rotation) without the token.
        setSessionKey((await window.pincerDesktop.signIn()).key);
        ok = await signedIn();
      }
      setState(ok ? 'signed-in' : 'signed-out');
    } catch {
      // Unreachable at start: show the shell; its banner says so and pages recover when the hub is back.
      setState('signed-in');
    }
  };
  useEffect(() => void check(), []);
  if (state === 'checking') return <Announcer />;
  if (state === 'signed-out')
    return (
      <>
        <SignIn onSignedIn={() => setState('signed-in')} ended={ended} />
        <Announcer />
      </>
    );
  return (
    <Shell
      onSignedOut={() => {
        setSessionKey(null);
        setEnded(true);
        // The desktop window signs itself in again (a session that ended, a rotated token); a browser asks for the token.
        if (window.pincerDesktop) {
          setState('checking');
          void check();
        } else setState('signed-out');
      }}
    />
  );
}
