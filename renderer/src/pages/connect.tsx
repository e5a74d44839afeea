import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { useResource } from '../hooks.js';
import { Breakable, Panel, Pending, Problem, announce } from '../ui.js';
import type { ClientConnectView, ConnectOutcome, ConnectView, PageProps } from '../types.js';

const SAID: Record<ConnectOutcome['action'], (o: ConnectOutcome) => string> = {
  connected: (o) => (o.changed ? `Added Pincer to ${o.name}` : `${o.name} already had this Pincer entry`),
  disconnected: (o) => (o.changed ? `Removed Pincer from ${o.name}` : `${o.name} had no Pincer entry`),
  bundle: (o) => `Opened the Pincer bundle with ${o.name}`,
};

/** What the last click did: the file, what was written, what to do next, how to undo it. */
function Outcome(props: { o: ConnectOutcome }) {
  const { o } = props;
  return (
    <section class="panel outcome" aria-labelledby="outcome-title" data-outcome={o.id}>
      <h2 id="outcome-title">{SAID[o.action](o)}</h2>
      <dl class="facts">
        <div>
          <dt>{o.action === 'bundle' ? 'Bundle' : 'Config file'}</dt>
          <dd class="wrap">
            <code>
              <Breakable text={o.file} />
            </code>
          </dd>
        </div>
        {o.backup ? (
          <div>
            <dt>The file as it was</dt>
            <dd class="wrap">
              <code>
                <Breakable text={o.backup} />
              </code>
            </dd>
          </div>
        ) : null}
      </dl>
      <p>{o.next}</p>
      {o.entry ? (
        <details>
          <summary>What was written</summary>
          <pre data-entry>{o.entry}</pre>
        </details>
      ) : null}
      <p class="muted wrap">To undo: {o.undo}</p>
    </section>
  );
}

/** One client: whether it is connected and found here, its config file, one button, and the terminal equivalent. */
function ClientRow(props: { c: ClientConnectView; busy: boolean; act(path: string, body: unknown): void }) {
  const { c } = props;
  const state = c.connected ? 'Connected' : 'Not connected';
  return (
    <li class="client" data-client={c.id}>
      <div class="client-head">
        <strong>{c.name}</strong>
        <span class={c.connected ? 'tag ok' : 'tag'}>{state}</span>
        {c.found ? <span class="tag">found on this computer</span> : null}
      </div>
      <p class="muted wrap client-file">
        <code>
          <Breakable text={c.file} />
        </code>{' '}
        · or in a terminal: <code>{c.connected ? c.command.replace('connect', 'disconnect') : c.command}</code>
      </p>
      <div class="row">
        {c.bundle && !c.connected ? (
          <button class="primary" type="button" disabled={props.busy} onClick={() => props.act('/api/connect/claude-desktop/bundle', {})}>
            Install the Pincer bundle (recommended)
          </button>
        ) : null}
        {c.connected ? (
          <button type="button" disabled={props.busy} aria-label={`Disconnect ${c.name}`} onClick={() => props.act(`/api/connect/${c.id}`, { connect: false })}>
            Disconnect
          </button>
        ) : (
          <button class={c.bundle ? '' : 'primary'} type="button" disabled={props.busy} aria-label={`Connect ${c.name}`} onClick={() => props.act(`/api/connect/${c.id}`, { connect: true })}>
            {c.bundle ? 'Add to its config file instead' : 'Connect'}
          </button>
        )}
      </div>
    </li>
  );
}

/** The clients Pincer connects, found ones first: the Connect page and the first-launch Welcome page. */
export function ConnectList(props: PageProps) {
  const r = useResource<ConnectView>('/api/connect', [], props.onSignedOut);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<ConnectOutcome>();
  const [problem, setProblem] = useState<string>();
  if (!r.data) return <Pending error={r.error} />;
  if (!r.data.available) return <Problem text={r.data.why} />;
  const act = async (path: string, body: unknown) => {
    setBusy(true);
    try {
      const res = await api<{ outcome: ConnectOutcome }>(path, { body });
      setOutcome(res.outcome);
      setProblem(undefined);
      announce(SAID[res.outcome.action](res.outcome));
    } catch (err) {
      setProblem(describeError(err));
    } finally {
      setBusy(false);
      r.reload();
    }
  };
  const clients = [...r.data.clients].sort((a, b) => Number(b.found) - Number(a.found));
  return (
    <>
      {outcome ? <Outcome o={outcome} /> : null}
      <Problem text={problem ?? r.error} />
      <Panel title="Clients">
        <p class="muted">One click writes Pincer's entry into the client's own config file, the way "pincer connect" does: its other servers, settings and comments stay as they were, and the old file is kept beside it. The client then starts Pincer by itself.</p>
        <ul class="clients">
          {clients.map((c) => (
            <ClientRow key={c.id} c={c} busy={busy} act={(p, b) => void act(p, b)} />
          ))}
        </ul>
      </Panel>
    </>
  );
}

export function ConnectPage(props: PageProps) {
  return <ConnectList {...props} />;
}
