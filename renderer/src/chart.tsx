import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot, { type AlignedData, type Axis, type Options } from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  /** A CSS custom property name, read at draw time so light and dark both fit. */
  colorVar: string;
  dash?: number[];
  /** Draw each value as a dot too: for series with gaps, where a lone minute would otherwise not show. */
  points?: boolean;
}

function cssVar(el: Element, name: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || '#888';
}

const DARK = '(prefers-color-scheme: dark)';

/** The page's colour scheme, followed live: the chart's colours are read from CSS once per build, so it rebuilds when the scheme changes. */
function useScheme(): 'dark' | 'light' {
  const query = matchMedia(DARK);
  const [dark, setDark] = useState(query.matches);
  useEffect(() => {
    const on = (e: MediaQueryListEvent) => setDark(e.matches);
    query.addEventListener('change', on);
    return () => query.removeEventListener('change', on);
  }, []);
  return dark ? 'dark' : 'light';
}

/**
 * The y axis as wide as its widest label, measured in the axis's own font (a fixed width clipped "10000 ms"
 * to "0000 ms"). uPlot calls this on each layout pass, and the labels can change between passes (the plot's
 * height, and so the ticks, settle with the other axis): after the first two passes the size only grows,
 * so that the layout converges and the labels of the last pass still fit.
 */
function fitLabels(self: uPlot, values: string[] | null, axisIdx: number, cycleNum: number): number {
  // uPlot keeps the axis's resolved font as [css font, px size] at run time, and its last size as _size.
  const axis = self.axes[axisIdx] as Axis & { font: [string, number]; _size: number; ticks: { size: number }; gap: number };
  const longest = (values ?? []).reduce((a, v) => (v.length > a.length ? v : a), '');
  self.ctx.font = axis.font[0];
  const size = Math.ceil(axis.ticks.size + axis.gap + self.ctx.measureText(longest).width / devicePixelRatio + 4);
  return cycleNum > 1 ? Math.max(axis._size, size) : size;
}

/**
 * A uPlot chart that follows its container's width and takes new data in place
 * (setData) rather than being rebuilt, so a live update is cheap and smooth.
 * `format` writes a y value as its label (with its unit).
 */
/** Ticks of a count's axis: whole numbers only (a call per minute has no half). */
const WHOLE_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000];

export function Chart(props: { data: AlignedData; series: Series[]; height: number; label: string; spark?: boolean; whole?: boolean; format?: (v: number) => string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const scheme = useScheme();
  const key = props.series.map((s) => s.label).join('|');
  useEffect(() => {
    const el = box.current!;
    const axisColor = cssVar(el, '--muted');
    const grid = cssVar(el, '--line');
    // uPlot fills its dots white by default: in dark mode that is a bright speck; the panel's own colour fits both.
    const panel = cssVar(el, '--panel');
    const format = props.format ?? String;
    const opts: Options = {
      width: Math.max(50, el.clientWidth),
      height: props.height,
      legend: { show: !props.spark },
      cursor: { show: !props.spark },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      // A tenth of headroom above the highest value, so its dot and its label are not cut at the top.
      scales: { x: { time: true }, y: { range: (_u, min, max) => [0, Math.max(1, max, min) * 1.1] } },
      axes: props.spark
        ? [{ show: false }, { show: false }]
        : [
            { stroke: axisColor, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
            { stroke: axisColor, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: fitLabels, values: (_u, vals) => vals.map(format), ...(props.whole ? { incrs: WHOLE_INCRS } : {}) },
          ],
      series: [{}, ...props.series.map((s) => ({ label: s.label, stroke: cssVar(el, s.colorVar), width: props.spark ? 1.5 : 2, dash: s.dash, points: { show: Boolean(s.points), size: 5, fill: panel } }))],
    };
    const u = new uPlot(opts, props.data, el);
    plot.current = u;
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(50, el.clientWidth), height: props.height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = undefined;
    };
  }, [key, props.height, props.spark, props.whole, scheme]);
  useEffect(() => {
    plot.current?.setData(props.data);
  }, [props.data]);
  return <div class={props.spark ? 'chart spark' : 'chart'} ref={box} role="img" aria-label={props.label} data-scheme={scheme} />;
}
