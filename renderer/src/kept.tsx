import { useResource } from './hooks.js';
import { bytes } from './format.js';
import type { KeptView } from './types.js';

type Kind = 'jobs' | 'tasks' | 'activity';

/** What the data folder keeps of a page's records, under which settings, and the disk it uses. */
export function Kept(props: { kinds: Kind[]; onSignedOut(): void }) {
  const r = useResource<KeptView>('/api/kept', ['records_pruned', 'settings_changed'], props.onSignedOut);
  const k = r.data;
  if (!k) return null;
  const lines: string[] = [];
  for (const kind of props.kinds) {
    if (kind === 'jobs')
      lines.push(
        `${k.jobs.ended.toLocaleString()} ended jobs with ${bytes(k.jobs.logBytes)} of output (kept ${k.jobs.days} days, at most ${k.jobs.max.toLocaleString()} jobs and ${bytes(k.jobs.maxBytes)}: JOB_RETENTION_DAYS, JOB_MAX_KEPT, JOB_MAX_KEPT_BYTES); running jobs are never deleted.`,
      );
    if (kind === 'tasks')
      lines.push(`${k.tasks.open.toLocaleString()} open, ${k.tasks.done.toLocaleString()} finished and ${k.tasks.archived.toLocaleString()} archived todos (finished ones kept ${k.tasks.days} days: TASK_RETENTION_DAYS); ${k.plans.count} plans (${k.plans.days} days).`);
    if (kind === 'activity') lines.push(`${k.activity.calls.toLocaleString()} tool calls (kept ${k.activity.days} days, at most ${k.activity.max.toLocaleString()}: ACTIVITY_RETENTION_DAYS, ACTIVITY_MAX_CALLS).`);
  }
  const s = k.store;
  return (
    <section class="panel kept" aria-label="What is kept">
      <h2>Kept on disk</h2>
      {lines.map((l) => (
        <p key={l} class="muted">
          {l}
        </p>
      ))}
      <p class="muted" data-store-bytes={s.fileBytes}>
        pincer.db uses {bytes(s.fileBytes)}
        {s.freeBytes ? `, ${bytes(s.freeBytes)} of it free and given back as retention runs` : ''}.
        {k.lastPass ? ` Last pruned ${new Date(k.lastPass.at).toLocaleString()}.` : ''}
      </p>
    </section>
  );
}
