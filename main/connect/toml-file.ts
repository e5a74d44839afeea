import { parseTOML, getStaticTOMLValue, ParseError } from 'toml-eslint-parser';
import type { AST } from 'toml-eslint-parser';
import { stringify } from 'smol-toml';
import { UserError } from '../core/errors.js';
import { ENTRY_NAME, readConfig, saveConfig, type EditResult } from './config-file.js';

/** A server entry's keys Pincer writes; any other key the user put in its table stays. */
const OWNED_KEYS = new Set(['command', 'args', 'env', 'cwd', 'url', 'http_headers', 'bearer_token_env_var']);

type Path = (string | number)[];
interface Span {
  start: number;
  end: number;
}

const startsWith = (path: Path, prefix: Path) => prefix.every((p, i) => path[i] === p);
const keyPath = (kv: AST.TOMLKeyValue): Path => kv.key.keys.map((k) => (k.type === 'TOMLBare' ? k.name : k.value));

function parse(text: string, file: string): AST.TOMLProgram {
  try {
    return parseTOML(text);
  } catch (err) {
    if (err instanceof ParseError) throw new UserError(`${file} is not valid TOML (line ${err.lineNumber}: ${err.message}). Fix it first; Pincer changed nothing.`, 'INVALID_INPUT');
    throw err;
  }
}

/** From the start of the line `at` is on. */
function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

/** Past the end of the line `at` is on, its newline included (a trailing comment goes with it). */
function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
}

/** A table's lines: its header through its last key/value. */
function tableSpan(text: string, t: AST.TOMLTable): Span {
  const last = t.body.length ? t.body[t.body.length - 1]!.range[1] : t.key.range[1];
  return { start: lineStart(text, t.range[0]), end: lineEnd(text, last) };
}

function kvSpan(text: string, kv: AST.TOMLKeyValue): Span {
  return { start: lineStart(text, kv.range[0]), end: lineEnd(text, kv.range[1]) };
}

/** One `key = value` line, written by smol-toml; tables become inline tables so they stay in Pincer's table. */
function tomlLine(key: string, value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const inner = Object.entries(value).map(([k, v]) => stringify({ [k]: v }).trim());
    return `${stringify({ [key]: '' }).split('=')[0]!.trim()} = { ${inner.join(', ')} }\n`;
  }
  return stringify({ [key]: value });
}

function removeSpans(text: string, spans: Span[]): string {
  let out = text;
  for (const s of [...spans].sort((a, b) => b.start - a.start)) out = out.slice(0, s.start) + out.slice(s.end);
  return out;
}

/**
 * Sets or removes `[<container>.pincer]` in a TOML config (Codex's
 * `config.toml`) by editing only its lines: every other table, key, comment
 * and blank line stays byte for byte, and keys the user added to Pincer's own
 * table (`enabled`, timeouts, `default_tools_approval_mode`, its `tools.*`
 * tables) survive a reconnect. toml-eslint-parser gives every node's place in
 * the text; smol-toml writes the values and reads the result back, which must
 * hold exactly the entry asked for, or nothing is written.
 */
export function editTomlServer(file: string, container: string, value: Record<string, unknown> | undefined): EditResult {
  const original = readConfig(file);
  if (original === undefined && value === undefined) return { file, changed: false };
  const text = original ?? '';
  const top = parse(text, file).body[0];
  const entry: Path = [container, ENTRY_NAME];
  const own: AST.TOMLTable[] = [];
  const remove: Span[] = [];
  let main: AST.TOMLTable | undefined;
  for (const node of top.body) {
    if (node.type === 'TOMLKeyValue') {
      // `mcp_servers.pincer.command = …` before any table: not a form Pincer edits in place, so it goes.
      if (startsWith(keyPath(node), entry)) remove.push(kvSpan(text, node));
      continue;
    }
    if (startsWith(node.resolvedKey, entry)) {
      own.push(node);
      if (node.resolvedKey.length === 2 && node.kind === 'standard') main = node;
      continue;
    }
    for (const kv of node.body) if (startsWith([...node.resolvedKey, ...keyPath(kv)], entry)) remove.push(kvSpan(text, kv));
  }
  let next: string;
  if (value === undefined) {
    for (const t of own) remove.push(tableSpan(text, t));
    next = removeSpans(text, remove);
    // The blank line connect put before the table it appended goes with it.
    if (next.endsWith('\n\n') && !text.endsWith('\n\n')) next = next.slice(0, -1);
  } else {
    const lines = Object.entries(value).map(([k, v]) => tomlLine(k, v)).join('');
    if (main) {
      for (const kv of main.body) if (OWNED_KEYS.has(String(keyPath(kv)[0]))) remove.push(kvSpan(text, kv));
      for (const t of own) if (t !== main && t.resolvedKey.length === 3 && OWNED_KEYS.has(String(t.resolvedKey[2]))) remove.push(tableSpan(text, t));
      const at = lineEnd(text, main.key.range[1]);
      next = removeSpans(text.slice(0, at) + lines + text.slice(at), remove.map((s) => (s.start >= at ? { start: s.start + lines.length, end: s.end + lines.length } : s)));
    } else {
      const kept = removeSpans(text, remove);
      const sep = kept === '' ? '' : kept.endsWith('\n\n') ? '' : kept.endsWith('\n') ? '\n' : '\n\n';
      next = `${kept}${sep}[${container}.${ENTRY_NAME}]\n${lines}`;
    }
  }
  check(next, file, container, value);
  if (next === text) return { file, changed: false };
  return saveConfig(file, original, next);
}

/** The edited text must parse and hold exactly the entry asked for (Pincer's keys), or nothing is written. */
function check(next: string, file: string, container: string, value: Record<string, unknown> | undefined): void {
  let got: unknown;
  try {
    got = readEntry(next, container);
  } catch (err) {
    throw new UserError(`${file}: Pincer could not add its table without breaking the file (${(err as Error).message}). If ${container} is written as an inline table, write its servers as [${container}.<name>] tables; Pincer changed nothing.`, 'CONFLICT');
  }
  if (value === undefined) {
    if (got !== undefined) throw new UserError(`${file}: Pincer's entry is defined in a form it cannot remove; delete [${container}.${ENTRY_NAME}] by hand. Pincer changed nothing.`, 'CONFLICT');
    return;
  }
  const mine = got && typeof got === 'object' ? Object.fromEntries(Object.entries(got).filter(([k]) => OWNED_KEYS.has(k))) : undefined;
  if (JSON.stringify(mine) !== JSON.stringify(value)) {
    throw new UserError(`${file}: Pincer's entry is defined in a form it cannot edit in place; remove ${container}.${ENTRY_NAME} by hand (or run "pincer disconnect"), then connect again. Pincer changed nothing.`, 'CONFLICT');
  }
}

function readEntry(text: string, container: string): unknown {
  const doc = getStaticTOMLValue(parseTOML(text)) as Record<string, unknown>;
  const servers = doc[container];
  return servers && typeof servers === 'object' ? (servers as Record<string, unknown>)[ENTRY_NAME] : undefined;
}

export function readTomlServer(file: string, container: string): unknown {
  const text = readConfig(file);
  return text === undefined ? undefined : readEntry(text, container);
}
