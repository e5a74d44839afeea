import { useResource } from '../hooks.js';
import { ago, duration } from '../format.js';
import { Panel, Pending } from '../ui.js';
import type { EnginesView } from '../types.js';

const STATE_LABEL: Record<EnginesView['engines'][number]['state'], string> = {
  ok: 'answering',
  resting: 'resting',
  failing: 'failed last time',
  unknown: 'not asked yet',
};

/** WebSearch's engines: which are asked, how they fared, and when a resting one is asked again. */
export function EnginesPanel(props: { onSignedOut(): void }) {
  const engines = useResource<EnginesView>('/api/search/engines', ['tool_call_finished', 'settings_changed'], props.onSignedOut);
  if (!engines.data) return <Pending error={engines.error} />;
  const now = Date.now();
  return (
    <Panel title="Search engines" class="engines">
      {engines.data.unknown.length ? <p class="warn">SEARCH_ENGINES names engines Pincer does not know: {engines.data.unknown.join(', ')}.</p> : null}
      <div class="table-wrap">
        <table>
          <caption class="muted">WebSearch asks the enabled engines at once; a failing one rests for a while that depends on the failure.</caption>
          <thead>
            <tr>
              <th scope="col">Engine</th>
              <th scope="col">State</th>
              <th scope="col">Last answer</th>
              <th scope="col">Last error</th>
              <th scope="col">Asked again</th>
            </tr>
          </thead>
          <tbody>
            {engines.data.engines.map((e) => (
              <tr key={e.name} data-engine={e.name} data-state={e.state}>
                <th scope="row">
                  {e.name}
                  {!e.enabled ? <span class="tag">off</span> : null}
                  {!e.configured ? <span class="tag">needs a key or URL</span> : null}
                </th>
                <td>{STATE_LABEL[e.state]}</td>
                <td>{e.lastSuccess ? `${ago(e.lastSuccess, now)}${e.medianMs !== undefined ? ` · median ${e.medianMs} ms` : ''}` : '–'}</td>
                <td>{e.lastError ? `${e.lastErrorKind ?? 'error'}: ${e.lastError}` : '–'}</td>
                <td>{e.state === 'resting' && e.restUntil ? `in ${duration(Math.max(1000, e.restUntil - now))}` : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}
