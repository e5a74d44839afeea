import { useState } from 'preact/hooks';
import { api, describeError, setSessionKey } from '../api.js';
import { ConfirmButton, Problem, announce } from '../ui.js';

/** The token, masked until asked for; copy and rotate beside it. */
export function TokenField(props: { onSignedOut(): void; id?: string }) {
  const [token, setToken] = useState<string>();
  const [shown, setShown] = useState(false);
  const [problem, setProblem] = useState<string>();
  const fetchToken = async () => {
    const t = token ?? (await api<{ value: string }>('/api/settings/secret/AUTH_TOKEN')).value;
    setToken(t);
    return t;
  };
  const id = props.id ?? 'token-value';
  return (
    <div>
      <div class="row">
        {shown ? <input id={id} class="mono grow" type="text" readOnly value={token ?? ''} aria-label="Hub token" /> : <input id={id} class="mono grow" type="password" readOnly value="••••••••••••••••••••" aria-label="Hub token (hidden)" />}
        <button
          type="button"
          aria-pressed={shown}
          onClick={async () => {
            try {
              if (!shown) await fetchToken();
              setShown(!shown);
            } catch (err) {
              setProblem(describeError(err));
            }
          }}
        >
          {shown ? 'Hide' : 'Show'}
        </button>
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(await fetchToken());
              announce('Token copied');
            } catch (err) {
              setProblem(err instanceof Error && err.name === 'NotAllowedError' ? 'The browser did not allow copying; use Show and copy it by hand.' : describeError(err));
            }
          }}
        >
          Copy
        </button>
        <ConfirmButton
          label="Rotate"
          question="Rotate the token?"
          detail="Every HTTP client must be given the new one, and every other signed-in dashboard is signed out."
          confirm="Rotate"
          onConfirm={async () => {
            try {
              const r = await api<{ token: string; key: string }>('/api/token/rotate', { body: {} });
              setSessionKey(r.key);
              setToken(r.token);
              announce('Token rotated');
            } catch (err) {
              setProblem(describeError(err));
            }
          }}
        />
      </div>
      <p class="muted">
        Clients send it as <code>Authorization: Bearer &lt;token&gt;</code>. <code>pincer token</code> prints it too.
      </p>
      <Problem text={problem} />
    </div>
  );
}
