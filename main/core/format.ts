/** Short human forms used in tool results and the dashboard. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${Math.floor(s % 60)}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${m % 60}m`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = -1;
  do {
    v /= 1024;
    i++;
  } while (v >= 1024 && i < units.length - 1);
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** Keeps the start and the end of a long text and says how much of the middle was dropped. */
export function cutMiddle(text: string, limit: number): { text: string; dropped: number } {
  if (text.length <= limit) return { text, dropped: 0 };
  const half = Math.floor(limit / 2);
  const dropped = text.length - 2 * half;
  return { text: `${text.slice(0, half)}\n\n[... ${dropped} characters dropped from the middle ...]\n\n${text.slice(text.length - half)}`, dropped };
}

export const PREVIEW_MAX = 200;

/**
 * A short preview that does not keep the long text alive: V8 slices share the
 * parent string, so a 200-character preview of a 1 MB result kept in a list
 * would keep the whole megabyte. Copying through a Buffer breaks the link.
 */
export function preview(text: string, max = PREVIEW_MAX): string {
  const short = text.length > max ? text.slice(0, max - 3) + '...' : text;
  return Buffer.from(short, 'utf8').toString('utf8');
}
