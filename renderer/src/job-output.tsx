import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import Anser from 'anser';
import { api, apiResponse, describeError } from './api.js';
import { onHubEvent } from './live.js';

/**
 * A job's output, as a reusable view (the Jobs page, and any other view of one job): the end of the log
 * first, earlier parts on demand from a line start, the whole log as a download, ANSI colours rendered
 * as styled text (never as HTML), and what the job writes appended as the hub announces it. It windows
 * long output: at most KEEP_BYTES of text are on the page; what it lets go of can be loaded again.
 * It knows nothing of the page around it: give it a job id (and whether the job still runs).
 */

/** Bytes asked for at a time, and the most kept on the page. */
const WINDOW_BYTES = 64 * 1024;
const KEEP_BYTES = 512 * 1024;

interface Chunk {
  from: number;
  to: number;
  text: string;
}

interface OutputWindow {
  from: number;
  to: number;
  size: number;
  running: boolean;
  text: string;
}

/** One run of text in one style (anser's parse of the escape codes; colours as "r, g, b"). */
const Run = (p: { e: Anser.AnserJsonEntry }) => {
  const d = p.e.decorations;
  const style: Record<string, string> = {};
  const fg = p.e.fg_truecolor || p.e.fg;
  const bg = p.e.bg_truecolor || p.e.bg;
  if (fg) style.color = `rgb(${fg})`;
  if (bg) style.backgroundColor = `rgb(${bg})`;
  if (d.includes('bold')) style.fontWeight = 'bold';
  if (d.includes('italic')) style.fontStyle = 'italic';
  if (d.includes('underline') || d.includes('strikethrough')) style.textDecoration = `${d.includes('underline') ? 'underline ' : ''}${d.includes('strikethrough') ? 'line-through' : ''}`;
  if (d.includes('dim')) style.opacity = '0.7';
  if (!fg && !bg && d.length === 0) return <>{p.e.content}</>;
  // A style object is set through the DOM's style properties, which the dashboard's CSP (no inline style) allows.
  return <span class="ansi" style={style}>{p.e.content}</span>;
};

/** A chunk parsed once and never rendered again while later chunks arrive. */
const ChunkView = memo((p: { chunk: Chunk }) => {
  const runs = Anser.ansiToJson(p.chunk.text, { json: true, remove_empty: true });
  return (
    <>
      {runs.map((e, i) => (
        <Run key={i} e={e} />
      ))}
    </>
  );
});

function bytesOf(chunks: Chunk[]): number {
  return chunks.reduce((n, c) => n + (c.to - c.from), 0);
}

/** The whole log, fetched with this tab's credentials and saved as a file. */
async function download(jobId: number): Promise<void> {
  const res = await apiResponse(`/api/jobs/${jobId}/log`);
  if (!res.ok) throw new Error(`The hub answered ${res.status}.`);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `pincer-job-${jobId}.log`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function JobOutput(props: { jobId: number; label?: string }) {
  const pre = useRef<HTMLPreElement>(null);
  const [chunks, setChunks] = useState<Chunk[]>([]);
  const [size, setSize] = useState(0);
  /** Output after the last chunk was let go of (the person read far back): "Show the end" brings it back. */
  const [cutEnd, setCutEnd] = useState(false);
  const [problem, setProblem] = useState<string>();
  const [loaded, setLoaded] = useState(false);
  const state = useRef({ chunks: [] as Chunk[], busy: false, again: false, cutEnd: false });
  const id = props.jobId;

  const show = (next: Chunk[], cut: boolean) => {
    state.current.chunks = next;
    state.current.cutEnd = cut;
    setChunks(next);
    setCutEnd(cut);
  };

  const fetchWindow = (params: string) => api<OutputWindow>(`/api/jobs/${id}/output?max=${WINDOW_BYTES}${params}`);

  /** What the job wrote since the last chunk (or the end of the log, at first), appended. */
  const pullNew = async () => {
    const st = state.current;
    if (st.busy) {
      st.again = true;
      return;
    }
    if (st.cutEnd) return;
    st.busy = true;
    try {
      const last = st.chunks.at(-1);
      const w = await fetchWindow(last ? `&from=${last.to}` : '');
      setSize(w.size);
      setLoaded(true);
      if (w.to > w.from) {
        const el = pre.current;
        const atBottom = !el || el.scrollHeight - el.scrollTop - el.clientHeight < 8;
        let next = [...state.current.chunks, { from: w.from, to: w.to, text: w.text }];
        // Windowing: the oldest chunks go once the page holds more than KEEP_BYTES ("Load earlier" brings them back).
        while (next.length > 1 && bytesOf(next) > KEEP_BYTES) next = next.slice(1);
        show(next, false);
        if (atBottom) requestAnimationFrame(() => el && (el.scrollTop = el.scrollHeight));
        // A full window means more is waiting.
        if (w.to - w.from >= WINDOW_BYTES - 4) st.again = true;
      }
    } catch (err) {
      setProblem(describeError(err));
    } finally {
      st.busy = false;
      if (st.again) {
        st.again = false;
        void pullNew();
      }
    }
  };

  const loadEarlier = async () => {
    const first = state.current.chunks[0];
    if (!first || first.from === 0) return;
    try {
      const w = await fetchWindow(`&before=${first.from}`);
      const el = pre.current;
      const fromBottom = el ? el.scrollHeight - el.scrollTop : 0;
      let next = [{ from: w.from, to: w.to, text: w.text }, ...state.current.chunks];
      let cut = state.current.cutEnd;
      while (next.length > 1 && bytesOf(next) > KEEP_BYTES) {
        next = next.slice(0, -1);
        cut = true;
      }
      show(next, cut);
      // The lines the person was reading stay where they were.
      requestAnimationFrame(() => el && (el.scrollTop = el.scrollHeight - fromBottom));
    } catch (err) {
      setProblem(describeError(err));
    }
  };

  const showEnd = () => {
    show([], false);
    void pullNew();
  };

  useEffect(() => {
    state.current = { chunks: [], busy: false, again: false, cutEnd: false };
    setChunks([]);
    setLoaded(false);
    void pullNew();
    return onHubEvent((e) => {
      if ((e.type === 'job_output' || e.type === 'job_ended') && e.job.id === id) void pullNew();
    });
  }, [id]);

  const first = chunks[0];
  const last = chunks.at(-1);
  return (
    <div class="job-output">
      <div class="row">
        {first && first.from > 0 ? (
          <button type="button" onClick={() => void loadEarlier()} data-load-earlier={id}>
            Load earlier output
          </button>
        ) : null}
        <span class="muted grow">
          {loaded ? (first ? `Bytes ${first.from.toLocaleString()}–${(last?.to ?? 0).toLocaleString()} of ${size.toLocaleString()}` : size ? '' : 'No output yet.') : 'Loading…'}
        </span>
        {size > 0 ? (
          <button type="button" onClick={() => download(id).catch((err: unknown) => setProblem(describeError(err)))} data-download={id}>
            Download log
          </button>
        ) : null}
      </div>
      {/* Not a live region: a screen reader would read every line. */}
      <pre ref={pre} data-job-output={id} aria-label={props.label ?? `Output of job ${id}`} tabIndex={0}>
        {chunks.map((c) => (
          <ChunkView key={c.from} chunk={c} />
        ))}
      </pre>
      {cutEnd ? (
        <button type="button" onClick={showEnd}>
          Show the end of the output
        </button>
      ) : null}
      {problem ? (
        <p class="problem" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
