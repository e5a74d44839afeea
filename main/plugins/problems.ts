/** Something wrong with one plugin file: where, and what to do about it (log and dashboard show it). */
export interface PluginProblem {
  file: string;
  line: number;
  message: string;
}

export function formatProblem(p: PluginProblem): string {
  return `${p.file}:${p.line}: ${p.message}`;
}
