import { useEffect, useRef, useState } from 'preact/hooks';
import type { PincerDesktopApi } from '../../main/desktop/channels.js';
import { signOut, describeError, SignedOut } from './api.js';
import { forget, foreignWorker, redeem, resume } from './sign-in.js';
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

/** `#signin=<code>` in the address (a link from `pincer dashboard`), taken out of it at once so that neither a reload nor the history keeps it. */
function takeSignInCode(): string | undefined {
  const m = /^#signin=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)(?:&to=([a-z-]+))?$/.exec(location.hash);
  if (!m) return undefined;
  history.replaceState(null, '', `${location.pathname}${location.search}#/${m[2] ?? 'overview'}`);
  return m[1];
}

function SignIn(props: { why?: string; retry?: () => void }) {
  const main = useRef<HTMLElement>(null);
  useEffect(() => main.current?.focus(), []);
  return (
    <main id="main" ref={main} class="signin" tabIndex={-1}>
      <div class="panel login">
        <h1>Sign in to Pincer</h1>
        {props.why ? (
          <p class="muted" id="session-ended" role="alert">
            {props.why}
          </p>
        ) : null}
        <p id="signin-help">
          Run <code>pincer dashboard</code> in a terminal (<code>npx pincer dashboard</code> in a Pincer checkout): it opens this dashboard in your browser, signed in. The tray app&apos;s <em>Open dashboard</em> signs in by itself.
        </p>
        <p class="muted">
          A dashboard sign-in ends on Sign out, after 2 hours without use, 24 hours after signing in, when the token changes and when the hub stops or restarts. Pincer never asks for its token in a web page: a page that does is not Pincer&apos;s.
        </p>
        {props.retry ? (
          <button class="primary" type="button" onClick={props.retry}>
            Sign in
          </button>
        ) : null}
      </div>
    </main>
  );
}

function Shell(props: { onSignedOut(why?: string): void }) {
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

/** A kept sign-in that ended (its hub restarted): the desktop window signs in again by itself, a browser says why. */
function desktopSignsInAgain(err: unknown): false {
  if (window.pincerDesktop && err instanceof SignedOut) return false;
  throw err;
}

export function App() {
  const [state, setState] = useState<State>('checking');
  const [why, setWhy] = useState<string>();
  const start = async () => {
    setState('checking');
    // A worker another program left on this origin: removed, and the page loads again without it.
    if (foreignWorker()) return;
    try {
      const code = takeSignInCode();
      if (code) await redeem(code);
      else if (!(await resume().catch(desktopSignsInAgain))) {
        if (!window.pincerDesktop) return setState('signed-out');
        await redeem((await window.pincerDesktop.signIn()).code);
      }
      setWhy(undefined);
      setState('signed-in');
    } catch (err) {
      setWhy(describeError(err));
      setState('signed-out');
    }
  };
  useEffect(() => {
    void start();
    // A sign-in link opened in a tab that shows the dashboard already changes only the fragment.
    const onHash = () => {
      if (location.hash.startsWith('#signin=')) void start();
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  if (state === 'checking') return <Announcer />;
  if (state === 'signed-out')
    return (
      <>
        <SignIn why={why} retry={window.pincerDesktop ? () => void start() : undefined} />
        <Announcer />
      </>
    );
  return (
    <Shell
      onSignedOut={(reason?: string) => {
        forget();
        setWhy(reason ?? 'You are signed out.');
        // The desktop window signs itself in again (a sign-in that ended, a rotated token); a browser shows how to.
        if (window.pincerDesktop) void start();
        else setState('signed-out');
      }}
    />
  );
}
