import { useEffect, useState } from 'preact/hooks';
import { openLink } from './bridge.js';
import { Problem } from '../problem.js';

/** Small pieces every view uses. */

export function Fact(props: { term: string; value: string; wide?: boolean }) {
  return (
    <div class={props.wide ? 'wide' : undefined}>
      <dt>{props.term}</dt>
      <dd>{props.value}</dd>
    </div>
  );
}

export { Problem } from '../problem.js';

/** What changed, said once to a screen reader (a polite live region, visually hidden). */
export function StatusLine(props: { text: string }) {
  return (
    <p class="visually-hidden" role="status" aria-live="polite">
      {props.text}
    </p>
  );
}

/** A link to the dashboard, opened by the host in the person's browser. */
export function DashboardLink(props: { url: string; label: string }) {
  const [problem, setProblem] = useState<string>();
  return (
    <>
      <a
        href={props.url}
        class="dashboard-link"
        onClick={(e) => {
          e.preventDefault();
          void openLink(props.url).then(setProblem);
        }}
      >
        {props.label}
      </a>
      <Problem text={problem} />
    </>
  );
}

/** The time, every `ms` (0: not ticking). */
export function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!ms) return;
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
