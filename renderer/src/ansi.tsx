import Anser from 'anser';
import { memo } from 'preact/compat';
import './ansi.css';

/**
 * Terminal output as styled text, for the dashboard and the chat views alike: anser parses the escape
 * codes, the text is never HTML. The 16 colours are classes whose colours the page's stylesheet chooses
 * (ansi.css, for light and dark); the 256-colour palette and 24-bit colours are set as style properties
 * (the CSSOM, which the dashboard's CSP allows where it refuses a style attribute).
 */

/** What a terminal leaves of each line: the text after its last carriage return (a progress bar's last state). */
function settle(text: string): string {
  if (!text.includes('\r')) return text;
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.slice(line.lastIndexOf('\r') + 1))
    .join('\n');
}

const DECORATION_CLASS: Partial<Record<Anser.DecorationName, string>> = { bold: 'ansi-bold', dim: 'ansi-dim', italic: 'ansi-italic', underline: 'ansi-underline', strikethrough: 'ansi-strike' };

/** xterm's 256-colour palette past the first 16 (a 6×6×6 cube, then 24 greys), which have no class of their own. */
function paletteColour(index: number): string {
  if (index < 16) return '';
  if (index >= 232) {
    const v = 8 + (index - 232) * 10;
    return `rgb(${v}, ${v}, ${v})`;
  }
  const n = index - 16;
  const level = (x: number) => (x === 0 ? 0 : 55 + x * 40);
  return `rgb(${level(Math.floor(n / 36))}, ${level(Math.floor(n / 6) % 6)}, ${level(n % 6)})`;
}

/** A run's colour: a class for the 16 themed ones, else the colour itself (24-bit, or the 256 palette). */
function colour(name: string, truecolor: string): { class?: string; value?: string } {
  if (!name) return {};
  if (truecolor) return { value: `rgb(${truecolor})` };
  const palette = /^ansi-palette-(\d+)$/.exec(name);
  return palette ? { value: paletteColour(Number(palette[1])) } : { class: name };
}

function Run(props: { run: Anser.AnserJsonEntry }) {
  const r = props.run;
  const fg = colour(r.fg, r.fg_truecolor);
  const bg = colour(r.bg, r.bg_truecolor);
  const classes = [fg.class ? `${fg.class}-fg` : '', bg.class ? `${bg.class}-bg` : '', ...r.decorations.map((d) => DECORATION_CLASS[d] ?? '')].filter(Boolean);
  const style = fg.value || bg.value ? { ...(fg.value ? { color: fg.value } : {}), ...(bg.value ? { backgroundColor: bg.value } : {}) } : undefined;
  if (classes.length === 0 && !style) return <>{r.content}</>;
  return (
    <span class={['ansi', ...classes].join(' ')} style={style}>
      {r.content}
    </span>
  );
}

/** One piece of output, parsed once: a memo, so that appending a piece never renders the earlier ones again. */
export const AnsiText = memo((props: { text: string }) => {
  const runs = Anser.ansiToJson(settle(props.text), { json: true, use_classes: true, remove_empty: true });
  return (
    <>
      {runs.map((r, i) => (
        <Run key={i} run={r} />
      ))}
    </>
  );
});
