import Anser from 'anser';
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';

/**
 * A job's output as a terminal shows it: ANSI colours and styles rendered (anser parses them; the text
 * is never HTML), a line rewritten with \r shown as its last state. Kept at the bottom while it grows
 * unless the person scrolled up to read.
 */

/** What a terminal leaves of each line: the text after its last carriage return. */
function settle(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.slice(line.lastIndexOf('\r') + 1))
    .join('\n');
}

const DECORATION_CLASS: Record<string, string> = { bold: 'ansi-bold', dim: 'ansi-dim', italic: 'ansi-italic', underline: 'ansi-underline', strikethrough: 'ansi-strike' };

/** xterm's 256-colour palette past the first 16 (a 6×6×6 cube, then 24 greys), which have no class of their own. */
function paletteColour(index: number): string {
  if (index >= 232) {
    const v = 8 + (index - 232) * 10;
    return `rgb(${v}, ${v}, ${v})`;
  }
  const n = index - 16;
  const level = (x: number) => (x === 0 ? 0 : 55 + x * 40);
  return `rgb(${level(Math.floor(n / 36))}, ${level(Math.floor(n / 6) % 6)}, ${level(n % 6)})`;
}

/** A chunk's colour: a class for the 16 themed ones, else the colour itself (24-bit, or the 256 palette). */
function colour(name: string, truecolor: string): { class?: string; value?: string } {
  if (!name) return {};
  if (truecolor) return { value: `rgb(${truecolor})` };
  const palette = /^ansi-palette-(\d+)$/.exec(name);
  return palette ? { value: paletteColour(Number(palette[1])) } : { class: name };
}

function Chunk(props: { chunk: Anser.AnserJsonEntry }) {
  const c = props.chunk;
  const fg = colour(c.fg, c.fg_truecolor);
  const bg = colour(c.bg, c.bg_truecolor);
  const classes = [fg.class ? `${fg.class}-fg` : '', bg.class ? `${bg.class}-bg` : '', ...c.decorations.map((d) => DECORATION_CLASS[d] ?? '')].filter(Boolean).join(' ');
  // Colours without a class are set through the CSSOM (a style property, not markup).
  const style = fg.value || bg.value ? { ...(fg.value ? { color: fg.value } : {}), ...(bg.value ? { backgroundColor: bg.value } : {}) } : undefined;
  if (!classes && !style) return <>{c.content}</>;
  return (
    <span class={classes || undefined} style={style}>
      {c.content}
    </span>
  );
}

export function TerminalOutput(props: { text: string; label: string; empty: string }) {
  const pre = useRef<HTMLPreElement>(null);
  const atBottom = useRef(true);
  const chunks = useMemo(() => Anser.ansiToJson(settle(props.text), { use_classes: true, remove_empty: true }), [props.text]);
  useLayoutEffect(() => {
    const el = pre.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [chunks]);
  return (
    <pre
      ref={pre}
      class="terminal"
      tabIndex={0}
      aria-label={props.label}
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
      }}
    >
      {props.text ? chunks.map((c, i) => <Chunk key={i} chunk={c} />) : <span class="muted">{props.empty}</span>}
    </pre>
  );
}
