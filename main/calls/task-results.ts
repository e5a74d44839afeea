import fs from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { errorMessage } from '../core/errors.js';
import { logger } from '../core/log.js';

const log = logger('mcp-tasks');

/** The most of a task's result pincer.db keeps and tasks/get returns (its JSON); a larger one goes to a file. */
export const TASK_RESULT_MAX_BYTES = 1024 * 1024;
/** How much of a larger result's text the kept result still shows, before saying where the rest is. */
const PREVIEW_CHARS = 16 * 1024;
/** A task's error message (a plugin may throw anything) is cut here. */
export const TASK_ERROR_MAX_CHARS = 16 * 1024;

/**
 * Where the results of tasks too large to keep go: `<PINCER_HOME>/task-results/<task id>.txt` (the
 * result's text) or `.json` (a result without text), written 0600, and deleted once the task is
 * (`prune`). The task keeps the start of the text and where the whole is, which a local client reads
 * in parts (Claude Code's Read with an offset, `sed -n`), instead of pincer.db holding and every
 * tasks/get sending, say, 100 MB.
 */
export class TaskResultFiles {
  constructor(private dir: string) {}

  /** The result as the task keeps it: as it is when small enough, else its start and the file with all of it. */
  fit(taskId: string, result: CallToolResult, ttlMs: number): CallToolResult {
    const json = JSON.stringify(result);
    const bytes = Buffer.byteLength(json);
    if (bytes <= TASK_RESULT_MAX_BYTES) return result;
    const texts = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
    const text = texts.join('\n\n');
    const file = path.join(this.dir, `${taskId}.${texts.length ? 'txt' : 'json'}`);
    const body = texts.length ? text : json;
    let where: string;
    try {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(file, body, { mode: 0o600 });
      where = `The whole ${texts.length ? 'text' : 'result, as JSON,'} (${Buffer.byteLength(body)} bytes) is in ${file}: read it in parts. It is deleted with the task, ${Math.round(ttlMs / 60_000)} minutes after the task ended.`;
    } catch (err) {
      log.warn(`task ${taskId}: its result (${bytes} bytes) could not be saved to ${file}`, { err });
      where = `It could not be saved to ${file} either (${(err as NodeJS.ErrnoException).code === 'ENOSPC' ? 'the disk is full' : errorMessage(err)}): call the tool again asking for less.`;
    }
    const preview = texts.length ? `${wholeChars(text, PREVIEW_CHARS)}…\n\n` : '';
    return { content: [{ type: 'text', text: `${preview}[This result is ${bytes} bytes, more than a task keeps (${TASK_RESULT_MAX_BYTES} bytes). ${where}]` }], ...(result.isError ? { isError: true } : {}) };
  }

  /** Deletes the files of tasks that are no longer kept. */
  prune(kept: Set<string>): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return; // no folder: no large result was ever kept
    }
    for (const name of names) {
      const id = name.replace(/\.(txt|json)$/, '');
      if (id === name || kept.has(id)) continue;
      try {
        fs.unlinkSync(path.join(this.dir, name));
      } catch (err) {
        log.warn(`the result file ${name} of an expired task could not be deleted`, { err });
      }
    }
  }
}

/** At most `n` UTF-16 units of `s`, never ending in half a surrogate pair. */
function wholeChars(s: string, n: number): string {
  if (s.length <= n) return s;
  const cut = s.slice(0, n);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** A task's error, its message cut to TASK_ERROR_MAX_CHARS. */
export function boundedError<E extends { message: string }>(error: E): E {
  return error.message.length <= TASK_ERROR_MAX_CHARS ? error : { ...error, message: `${wholeChars(error.message, TASK_ERROR_MAX_CHARS)}… (cut at ${TASK_ERROR_MAX_CHARS} characters)` };
}
