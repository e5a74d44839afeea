import { useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { useNow, useResource } from '../hooks.js';
import { ConfirmButton, Empty, Panel, Problem, announce, Pending } from '../ui.js';
import { ago, duration } from '../format.js';
import type { CallbacksView, PageProps } from '../types.js';


export function CallbacksPage(props: PageProps) {
  const r = useResource<CallbacksView>('/api/callbacks', ['callback_fired', 'callbacks_changed'], props.onSignedOut);
  const now = useNow(1000);
  const [problem, setProblem] = useState<string>();
  if (!r.data) return <Pending error={r.error} />;
  const d = r.data;
  return (
    <>
      <Problem text={problem ?? r.error} />
      <Panel title="Active">
        {d.callbacks.length ? (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Slot</th>
                  <th>Message</th>
                  <th>Next in</th>
                  <th>Every</th>
                  <th>Fires left</th>
                  <th>
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.callbacks.map((c) => (
                  <tr key={c.id}>
                    <td>{c.id}</td>
                    <td class="wrap">{c.message}</td>
                    <td>{duration(Math.max(0, c.next_fire_at - now))}</td>
                    <td>{c.delay_seconds} s</td>
                    <td>{c.fires_left ?? '∞'}</td>
                    <td>
                      <ConfirmButton
                        label="Cancel"
                        class="danger"
                        question={`Cancel callback ${c.id}?`}
                        detail={c.message}
                        confirm="Cancel callback"
                        onConfirm={async () => {
                          try {
                            await api(`/api/callbacks/${c.id}/cancel`, { body: {} });
                            announce(`Callback ${c.id} cancelled`);
                          } catch (err) {
                            setProblem(describeError(err));
                          }
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <Empty title="No active callbacks">A model sets them with SetCallback to be reminded later; they count down here.</Empty>
        )}
      </Panel>
      <Panel title="Recently fired">
        {d.recent.length ? (
          <ul>
            {d.recent.map((f) => (
              <li key={f.id}>
                <span class="muted">{ago(f.fired_at, now)}</span> — {f.message}
                {f.late ? ' (late)' : ''}
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">Nothing yet.</p>
        )}
      </Panel>
    </>
  );
}
