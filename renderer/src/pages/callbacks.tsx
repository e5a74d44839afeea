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
            <table class="stack">
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
                    <td class="nowrap" data-label="Slot">{c.id}</td>
                    <td class="wrap" data-label="Message">{c.message}</td>
                    <td class="nowrap" data-label="Next in">{duration(Math.max(0, c.next_fire_at - now))}</td>
                    <td class="nowrap" data-label="Every">{c.delay_seconds} s</td>
                    <td class="nowrap" data-label="Fires left">{c.fires_left ?? '∞'}</td>
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
