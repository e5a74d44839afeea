/** "Jobs 51–100 of 9 998" with Newer and Older: the pages of a list too long to show at once. */
export function Pager(props: { what: string; offset: number; shown: number; total: number; page: number; capped?: boolean; onOffset(offset: number): void }) {
  const { offset, shown, total, page } = props;
  if (total <= shown && offset === 0) return total ? <p class="muted pager">All {total.toLocaleString()} {props.what}.</p> : null;
  return (
    <nav class="row pager" aria-label={`Pages of ${props.what}`}>
      <button type="button" disabled={offset === 0} onClick={() => props.onOffset(Math.max(0, offset - page))}>
        Newer
      </button>
      <span class="muted" data-pager={props.what}>
        {props.what[0]!.toUpperCase() + props.what.slice(1)} {shown ? `${(offset + 1).toLocaleString()}–${(offset + shown).toLocaleString()}` : 'none'} of {total.toLocaleString()}
        {props.capped ? '+' : ''}
      </span>
      <button type="button" disabled={offset + shown >= total} onClick={() => props.onOffset(offset + page)}>
        Older
      </button>
    </nav>
  );
}
