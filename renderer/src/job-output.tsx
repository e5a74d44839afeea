import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { AnsiText } from './ansi.js';
import { Problem } from './problem.js';

/**
 * A job's output, for the dashboard's Jobs page and the chat's job view alike: the end of the log first,
 * earlier parts on demand from a line start, ANSI colours as styled text (never HTML), and what the job
 * writes appended as it writes. It windows long output: at most KEEP_BYTES of text are on the page; what it
 * lets go of can be loaded again. Where the windows come from is the page's business (an OutputSource: the
 * dashboard reads the hub's HTTP API, a chat view calls JobViewRead through its host).
 */

/** Bytes asked for at a time, and the most kept on the page. */
const WINDOW_BYTES = 64 * 1024;
const KEEP_BYTES = 512 * 1024;

/** A window of a job's output: bytes [from, to) of the `size` written so far, decoded on whole characters. */
export interface OutputWindow {
  from: number;
  to: number;
  size: number;
  /** The first byte still kept (0 for a log file; a run kept in memory may have let its start go). */
  start?: number;
  running: boolean;
  text: string;
}

/** Where a job's output comes from. */
export interface OutputSource {
  /** Which output this is: a new key starts over. */
  key: string;
  /**
   * The end of the output (neither `from` nor `before`), the part from `from` on, or the part that ends at
   * `before`, starting at a line start. With `wait` (and `from`), first waits a while, as long as the
   * source can, for output past `from` or the job's end; an empty window then means "nothing yet".
   */
  read(at: { from?: number; before?: number; wait?: boolean }, maxBytes: number, signal: AbortSignal): Promise<OutputWindow>;
}

interface Chunk {
  from: number;
  to: number;
  text: string;
}

function bytesOf(chunks: Chunk[]): number {
  return chunks.reduce((n, c) => n + (c.to - c.from), 0);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

/**
 * The output of `source`. `id` names it in the page (`data-job-output`, `data-load-earlier`); `actions` go
 * beside the range (the dashboard's download).
 */
export function JobOutput(props: { source: OutputSource; id: string | number; label: string; actions?: ComponentChildren }) {
  const { source, id } = props;
  const pre = useRef<HTMLPreElement>(null);
  const [chunks, setChunks] = useState<Chunk[]>([]);
  const [facts, setFacts] = useState({ size: 0, start: 0, running: true, loaded: false });
  /** Output after the last chunk was let go of (the person read far back): "Show the end" brings it back. */
  const [cutEnd, setCutEnd] = useState(false);
  const [problem, setProblem] = useState<string>();
  const state = useRef({ chunks: [] as Chunk[], cutEnd: false, resume: () => {} });
  /** Where the view stays after the next render: at the bottom (while the person reads the end), or as far from it as before (earlier output put above). */
  const anchor = useRef<{ bottom: true } | { fromBottom: number } | undefined>(undefined);
  const atBottom = useRef(true);

  const show = (next: Chunk[], cut: boolean) => {
    state.current.chunks = next;
    state.current.cutEnd = cut;
    setChunks(next);
    setCutEnd(cut);
  };
  const learn = (w: OutputWindow) => setFacts({ size: w.size, start: w.start ?? 0, running: w.running, loaded: true });

  // Follow the output: the end first, then what follows it, one read at a time, until the job has ended and all of it is read.
  useEffect(() => {
    const stop = new AbortController();
    state.current = { chunks: [], cutEnd: false, resume: () => {} };
    setChunks([]);
    setCutEnd(false);
    setFacts({ size: 0, start: 0, running: true, loaded: false });
    void (async () => {
      let failures = 0;
      let full = false;
      while (!stop.signal.aborted) {
        const st = state.current;
        if (st.cutEnd) {
          // Paused while the end is let go of; "Show the end" resumes.
          await new Promise<void>((resolve) => {
            st.resume = resolve;
            stop.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          continue;
        }
        const last = st.chunks.at(-1);
        try {
          const w = await source.read(last ? { from: last.to, wait: !full } : {}, WINDOW_BYTES, stop.signal);
          if (stop.signal.aborted) return;
          failures = 0;
          setProblem(undefined);
          learn(w);
          // A window that does not follow what is shown (the end was let go of, or shown afresh meanwhile) is dropped.
          const now = state.current;
          if (!now.cutEnd && w.to > w.from && (now.chunks.at(-1)?.to ?? w.from) === w.from) {
            let next = [...now.chunks, { from: w.from, to: w.to, text: w.text }];
            // Windowing: the oldest chunks go once the page holds more than KEEP_BYTES ("Load earlier" brings them back).
            while (next.length > 1 && bytesOf(next) > KEEP_BYTES) next = next.slice(1);
            if (atBottom.current) anchor.current = { bottom: true };
            show(next, false);
          }
          // A full window means more is waiting: read on without waiting.
          full = w.to - w.from >= WINDOW_BYTES - 4;
          if (!w.running && w.to >= w.size) return;
        } catch (err) {
          if (stop.signal.aborted) return;
          failures++;
          setProblem(err instanceof Error ? err.message : String(err));
          await sleep(Math.min(30_000, 1000 * 2 ** failures), stop.signal);
        }
      }
    })();
    return () => stop.abort();
  }, [source.key]);

  useLayoutEffect(() => {
    const el = pre.current;
    const a = anchor.current;
    anchor.current = undefined;
    if (!el || !a) return;
    el.scrollTop = 'bottom' in a ? el.scrollHeight : el.scrollHeight - a.fromBottom;
  }, [chunks]);

  const loadEarlier = async () => {
    const first = state.current.chunks[0];
    if (!first || first.from <= facts.start) return;
    try {
      const w = await source.read({ before: first.from }, WINDOW_BYTES, new AbortController().signal);
      // Shown afresh meanwhile: this part no longer joins what is on the page.
      if (state.current.chunks[0]?.from !== w.to) return;
      let next = [{ from: w.from, to: w.to, text: w.text }, ...state.current.chunks];
      let cut = state.current.cutEnd;
      while (next.length > 1 && bytesOf(next) > KEEP_BYTES) {
        next = next.slice(0, -1);
        cut = true;
      }
      // The lines the person was reading stay where they were.
      const el = pre.current;
      if (el) anchor.current = { fromBottom: el.scrollHeight - el.scrollTop };
      show(next, cut);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };

  const showEnd = () => {
    anchor.current = { bottom: true };
    atBottom.current = true;
    show([], false);
    state.current.resume();
  };

  const first = chunks[0];
  const last = chunks.at(-1);
  const partial = first && last && (first.from > facts.start || last.to < facts.size);
  return (
    <div class="job-output">
      <div class="row output-bar">
        {first && first.from > facts.start ? (
          <button type="button" onClick={() => void loadEarlier()} data-load-earlier={id}>
            Load earlier output
          </button>
        ) : null}
        <span class="muted grow">
          {!facts.loaded ? 'Loading…' : partial ? `Bytes ${first.from.toLocaleString()}–${last.to.toLocaleString()} of ${facts.size.toLocaleString()}${facts.start > 0 ? ` (the first ${facts.start.toLocaleString()} are no longer kept)` : ''}` : ''}
        </span>
        {props.actions}
      </div>
      {/* Not a live region: a screen reader would read every line. */}
      <pre
        ref={pre}
        class="terminal"
        data-job-output={id}
        aria-label={props.label}
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
        }}
      >
        {chunks.length ? chunks.map((c) => <AnsiText key={c.from} text={c.text} />) : facts.loaded ? <span class="muted">{facts.running ? 'No output yet.' : 'No output.'}</span> : null}
      </pre>
      {cutEnd ? (
        <button type="button" onClick={showEnd}>
          Show the end of the output
        </button>
      ) : null}
      <Problem text={problem} />
    </div>
  );
}

/** Output that is all there already (a call's result): one window, ended. */
export function textSource(key: string, text: string): OutputSource {
  return { key, read: async () => ({ from: 0, to: text.length, size: text.length, running: false, text }) };
}
