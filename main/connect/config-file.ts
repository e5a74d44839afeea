import fs from 'node:fs';
import path from 'node:path';
import { parse, parseTree, findNodeAtLocation, modify, applyEdits, format, printParseErrorCode, type ParseError, type FormattingOptions } from 'jsonc-parser';
import { writeFileAtomic } from '../core/paths.js';
import { UserError } from '../core/errors.js';

export const ENTRY_NAME = 'pincer';

/** The file's own indentation and line ends, so an edit looks like the rest of it. */
export function detectFormatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1];
  return { insertSpaces: !indent?.startsWith('\t'), tabSize: indent && !indent.startsWith('\t') ? indent.length : 2, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

export function readConfig(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UserError(`cannot read ${file}: ${(err as Error).message}`, 'UNAVAILABLE');
  }
}

function checkParsable(text: string, file: string): void {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split('\n').length;
    throw new UserError(`${file} is not valid JSON (line ${line}: ${printParseErrorCode(e.error)}). Fix it first; Pincer changed nothing.`, 'INVALID_INPUT');
  }
  const root = parseTree(text);
  if (root && root.type !== 'object') throw new UserError(`${file} does not hold a JSON object; Pincer changed nothing.`, 'INVALID_INPUT');
}

/**
 * A backup name no earlier backup has: `<file>.pincer-backup-<YYYYMMDD-HHMMSS>`, then `-2`, `-3` … when a
 * connect and a disconnect fall in the same second, so the backup of the original is never overwritten.
 */
function keepBackup(file: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  for (let n = 1; n < 1000; n++) {
    const name = `${file}.pincer-backup-${stamp}${n === 1 ? '' : `-${n}`}`;
    try {
      // COPYFILE_EXCL: fails rather than replace a backup that is there (even one made at this instant by another process).
      fs.copyFileSync(file, name, fs.constants.COPYFILE_EXCL);
      return name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new UserError(`${file} has 1000 Pincer backups from this second; remove some of them and try again.`, 'LIMIT_REACHED');
}

export interface EditResult {
  file: string;
  backup?: string;
  changed: boolean;
}

/**
 * Sets or removes `<container>.pincer` in a client's JSON(C) config, touching
 * nothing else: jsonc-parser edits the text in place, so comments, order and
 * formatting of every other entry stay byte for byte. The old file is kept as
 * a timestamped backup and the new one replaces it atomically.
 */
export function editServerEntry(file: string, container: string, value: Record<string, unknown> | undefined): EditResult {
  const original = readConfig(file);
  if (original === undefined && value === undefined) return { file, changed: false };
  const text = original === undefined || original.trim() === '' ? '{}\n' : original;
  checkParsable(text, file);
  const tree = parseTree(text);
  if (value === undefined && !findNodeAtLocation(tree!, [container, ENTRY_NAME])) return { file, changed: false };
  const next = editInPlace(text, [container, ENTRY_NAME], value, detectFormatting(text));
  if (next === original) return { file, changed: false };
  return saveConfig(file, original, next);
}

/**
 * jsonc-parser's own formatting of an edit re-lays out every line the edit touches, so a neighbour
 * written on one line (`"other": { "command": "x" },`) came back spread over many. Here the edit is
 * made raw, then only its own text and the whitespace right at its ends are formatted; in a servers
 * object written on one line, Pincer's entry stays on that line too.
 */
function editInPlace(text: string, at: string[], value: unknown, formatting: FormattingOptions): string {
  const container = findNodeAtLocation(parseTree(text)!, at.slice(0, -1));
  const oneLine = !!container?.children?.length && !/[\r\n]/.test(text.slice(container.offset, container.offset + container.length));
  let next = text;
  // One edit in practice (an insert, a replace or a removal); from the last so earlier offsets stay true.
  for (const e of [...modify(text, at, value, {})].sort((a, b) => b.offset - a.offset)) {
    const edited = applyEdits(next, [e]);
    const start = Math.max(0, e.offset - 1);
    let end = e.offset + e.content.length;
    // The whitespace after the edit is the user's, unless the object is (or was) empty: then its `}` gets its line (or `{}` again).
    const empty = /\{\s*$/.test(edited.slice(0, e.offset)) && /^\s*\}/.test(edited.slice(end));
    if (empty) end = edited.indexOf('}', end) + 1;
    next = applyEdits(edited, format(edited, { offset: start, length: end - start }, { ...formatting, keepLines: oneLine }));
  }
  return next;
}

/** Writes a client's edited config: the old file kept as a timestamped backup, the new one replacing it atomically. */
export function saveConfig(file: string, original: string | undefined, next: string): EditResult {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let backup: string | undefined;
  if (original !== undefined) backup = keepBackup(file);
  const mode = original !== undefined ? fs.statSync(file).mode & 0o777 : 0o600;
  writeFileAtomic(file, next, mode);
  return { file, backup, changed: true };
}

export function readServerEntry(file: string, container: string): unknown {
  const text = readConfig(file);
  if (text === undefined) return undefined;
  return (parse(text, [], { allowTrailingComma: true }) as Record<string, Record<string, unknown>> | undefined)?.[container]?.[ENTRY_NAME];
}
