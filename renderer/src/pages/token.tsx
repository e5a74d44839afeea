import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { redeem, signInKind } from '../sign-in.js';
import { ConfirmButton, Problem, announce } from '../ui.js';

/**
 * The token, masked until asked for; copy and rotate beside it. A browser's sign-in may rotate the
 * token but never read it (the hub refuses): there the field says where to find it instead.
 */
export function TokenField(props: { onSignedOut(why?: string): void; id?: string }) {
  const [token, setToken] = useState<string>();
  const [shown, setShown] = useState(false);
  const [problem, setProblem] = useState<string>();
  const readable = signInKind() === 'desktop';
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
        {readable ? (
          <>
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
          </>
        ) : null}
        <ConfirmButton
          label="Rotate"
          question="Rotate the token?"
          detail="Every HTTP client must be given the new one, and every other signed-in dashboard is signed out."
          confirm="Rotate"
          onConfirm={async () => {
            try {
              const r = await api<{ token?: string; code?: string }>('/api/token/rotate', { body: {} });
              // Rotation ends every sign-in, this one too: the answer carries a code for a new one.
              if (r.code) await redeem(r.code);
              setToken(r.token);
              announce('Token rotated');
            } catch (err) {
              setProblem(describeError(err));
            }
          }}
        />
      </div>
      <p class="muted" id={`${id}-help`}>
        Clients send it as <code>Authorization: Bearer &lt;token&gt;</code>.{' '}
        {readable ? (
          <>
            <code>pincer token</code> prints it too.
          </>
        ) : (
          <>
            A browser&apos;s dashboard does not show it: <code>pincer token</code> prints it (<code>npx pincer token</code> in a checkout), and the tray app&apos;s dashboard shows it.
          </>
        )}
      </p>
      <Problem text={problem} />
    </div>
  );
}
