import { useEffect, useRef } from 'preact/hooks';
import uPlot, { type AlignedData, type Options } from 'uplot';
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

/**
 * A uPlot chart that follows its container's width and takes new data in place
 * (setData) rather than being rebuilt, so a live update is cheap and smooth.
 */
export function Chart(props: { data: AlignedData; series: Series[]; height: number; label: string; spark?: boolean; unit?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const key = props.series.map((s) => s.label).join('|');
  useEffect(() => {
    const el = box.current!;
    const axisColor = cssVar(el, '--muted');
    const grid = cssVar(el, '--line');
    const opts: Options = {
      width: Math.max(50, el.clientWidth),
      height: props.height,
      legend: { show: !props.spark },
      cursor: { show: !props.spark },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      scales: { x: { time: true }, y: { range: (_u, min, max) => [0, Math.max(1, max, min)] } },
      axes: props.spark
        ? [{ show: false }, { show: false }]
        : [
            { stroke: axisColor, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
            { stroke: axisColor, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 66, values: (_u, vals) => vals.map((v) => `${v}${props.unit ?? ''}`) },
          ],
      series: [{}, ...props.series.map((s) => ({ label: s.label, stroke: cssVar(el, s.colorVar), width: props.spark ? 1.5 : 2, dash: s.dash, points: { show: Boolean(s.points), size: 5 } }))],
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
  }, [key, props.height, props.spark]);
  useEffect(() => {
    plot.current?.setData(props.data);
  }, [props.data]);
  return <div class={props.spark ? 'chart spark' : 'chart'} ref={box} role="img" aria-label={props.label} />;
}
