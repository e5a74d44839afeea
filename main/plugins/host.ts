import fs from 'node:fs';
import path from 'node:path';
import type { Contributions, Contribution, PluginFileStatus } from '../calls/contributions.js';
import { EMPTY_CONTRIBUTION } from '../calls/contributions.js';
import type { EventChannel } from '../tools/events.js';
import { errorMessage } from '../core/errors.js';
import { guarded, logger } from '../core/log.js';
import { parseCommandTool } from './command-tools.js';
import { ModulePlugin } from './modules.js';
import { lineOf } from './spec.js';
import { MAX_COMMAND_FILE_BYTES } from './limits.js';
import { formatProblem, type PluginProblem } from './problems.js';

const log = logger('plugins');

const COMMAND_EXT = /\.(ya?ml|json)$/i;
const MODULE_EXT = /\.(mjs|js)$/i;
/** A folder of plugins is the user's own: a few dozen files at most; more is a mistake, not a workload. */
const MAX_FILES = 200;

export interface PluginHostOptions {
  /** `<PINCER_HOME>/tools`: command tools. */
  toolsDir: string;
  /** `<PINCER_HOME>/plugins`: module plugins. */
  pluginsDir: string;
  /** Names of the built-in tools (a plugin never replaces one). */
  builtins: ReadonlySet<string>;
  pollMs?: number;
}

interface Loaded {
  signature: string;
  contribution: Contribution;
  problems: PluginProblem[];
  /** Tools its file turns off (`enabled: false`). */
  off: string[];
  /** A module plugin's thread and its state (disabled after repeated faults). */
  module?: ModulePlugin;
}

/**
 * Loads the user's plugins from their own data folder — never from a project
 * folder — and keeps them current: a file that appears, changes or goes is
 * reloaded within a poll (500 ms), and the clients hear list_changed. Each file
 * is its own owner of what it adds, so one broken file is a warning (log and
 * dashboard) with its line, and every other tool still loads.
 */
export class PluginHost {
  private loaded = new Map<string, Loaded>();
  /** Failures while running (a handler that threw), newest last, per file. */
  private failures = new Map<string, PluginProblem[]>();
  private timer?: NodeJS.Timeout;
  private watchers: fs.FSWatcher[] = [];
  private scanning?: Promise<void>;
  private again = false;
  private closed = false;

  constructor(private contributions: Contributions, private events: EventChannel, private opts: PluginHostOptions) {}

  /** Loads what is there now; then watches both folders. */
  async start(): Promise<void> {
    await this.scan();
    const check = guarded(log, 'plugin rescan', () => void this.scan());
    this.timer = setInterval(check, this.opts.pollMs ?? 500);
    this.timer.unref();
    for (const dir of [this.opts.toolsDir, this.opts.pluginsDir]) {
      try {
        const w = fs.watch(dir, { persistent: false }, () => setTimeout(check, 50));
        w.on('error', (err) => log.debug('a plugin folder watch failed; the poll goes on', { err }));
        this.watchers.push(w);
      } catch {
        // Missing folder: the poll notices when it appears.
      }
    }
  }

  /** One rescan at a time; a change seen meanwhile runs one more. Never rejects: a failure is logged and the next poll tries again. */
  scan(): Promise<void> {
    if (this.scanning) {
      this.again = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      do {
        this.again = false;
        await this.scanOnce();
      } while (this.again && !this.closed);
    })()
      .catch((err: unknown) => log.error('plugin rescan failed; the next one tries again', { err }))
      .finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  private async scanOnce(): Promise<void> {
    const files = [...listFiles(this.opts.toolsDir, COMMAND_EXT), ...listFiles(this.opts.pluginsDir, MODULE_EXT)];
    const present = new Set(files.map((f) => f.file));
    let changed = false;
    for (const [file, l] of [...this.loaded.entries()]) {
      if (present.has(file) || this.closed) continue;
      l.module?.close();
      this.loaded.delete(file);
      this.failures.delete(file);
      changed = true;
    }
    // Loaded side by side: a module plugin that never finishes loading costs its LOAD_TIMEOUT_MS once, not once per file after it.
    const next = await Promise.all(files.filter(({ file, signature }) => this.loaded.get(file)?.signature !== signature).map(async ({ file, signature }) => ({ file, loaded: await this.load(file, signature) })));
    for (const { file, loaded } of next) {
      if (this.closed) {
        loaded.module?.close();
        continue;
      }
      this.loaded.get(file)?.module?.close();
      this.failures.delete(file);
      for (const p of loaded.problems) log.warn(`plugin ${formatProblem(p)}`);
      this.loaded.set(file, loaded);
      changed = true;
    }
    if (changed && !this.closed) this.publish();
  }

  /** One file's contribution or its problem; nothing in the file can make this throw. */
  private async load(file: string, signature: string): Promise<Loaded> {
    const problem = (line: number, message: string): Loaded => ({ signature, contribution: EMPTY_CONTRIBUTION, problems: [{ file, line, message }], off: [] });
    const unsafe = unsafeToLoad(file);
    if (unsafe) return problem(1, unsafe);
    const onFailure = (message: string, err?: unknown) => this.recordFailure(file, message, err);
    try {
      if (COMMAND_EXT.test(file)) {
        const text = readNoFollow(file);
        if (text === undefined) return problem(1, `is larger than ${MAX_COMMAND_FILE_BYTES / 1024} KB, more than a command tool needs; it was not read`);
        const r = parseCommandTool(text, file, onFailure);
        return { signature, contribution: r.tool ? { ...EMPTY_CONTRIBUTION, tools: [r.tool] } : EMPTY_CONTRIBUTION, problems: r.problem ? [r.problem] : [], off: r.off ? [r.off] : [] };
      }
      const module = new ModulePlugin(file, signature, {
        onFailure,
        onFault: (p) => this.recordFault(p),
        onDisabled: (reason) => this.onDisabled(file, reason),
      });
      const r = await module.load();
      return { signature, contribution: r.contribution, problems: r.problems, off: r.off, module };
    } catch (err) {
      log.error(`plugin ${file} could not be loaded`, { err });
      return problem(lineOf(err, file), `cannot be loaded: ${errorMessage(err)}`);
    }
  }

  /** A plugin's fault (an error escaping its code, its thread exiting or freezing): logged and shown, never the hub's. */
  private recordFault(problem: PluginProblem): void {
    log.warn(`plugin ${formatProblem(problem)}`);
    this.remember(problem);
  }

  /** Disabled after repeated faults: its tools, prompts and resources go (clients hear list_changed) until the file changes. */
  private onDisabled(file: string, reason: string): void {
    log.error(`plugin ${file} disabled: ${reason}`);
    if (!this.closed) this.publish();
  }

  private recordFailure(file: string, message: string, err?: unknown): void {
    const problem = { file, line: err === undefined ? 1 : lineOf(err, file), message };
    log.warn(`plugin ${formatProblem(problem)}`);
    this.remember(problem);
  }

  /** The newest five failures of a file, for the dashboard. */
  private remember(problem: PluginProblem): void {
    const list = this.failures.get(problem.file) ?? [];
    list.push(problem);
    this.failures.set(problem.file, list.slice(-5));
    this.contributions.setStatus(this.status());
    this.events.publish({ type: 'plugins_changed', kinds: [], at: Date.now() });
  }

  /**
   * Hands every file's contribution to the catalogue, in file order: a name a
   * built-in or an earlier file already has is refused (a problem of the later file).
   */
  private publish(): void {
    const taken = { tools: new Set(this.opts.builtins), prompts: new Set<string>(), resources: new Set<string>(), templates: new Set<string>() };
    const owners = new Set(this.contributions.owners());
    for (const [file, l] of [...this.loaded.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const clash: PluginProblem[] = [];
      const keep = <T>(items: T[], key: (t: T) => string, set: Set<string>, what: string, builtin?: Set<string>): T[] =>
        items.filter((t) => {
          const k = key(t);
          if (!set.has(k)) {
            set.add(k);
            return true;
          }
          clash.push({ file, line: 1, message: `${what} ${k} is already ${builtin?.has(k) ? 'a built-in tool' : 'defined by another plugin'}; rename it.` });
          return false;
        });
      const c = l.module?.disabled ? EMPTY_CONTRIBUTION : l.contribution;
      const contribution: Contribution = {
        tools: keep(c.tools, (t) => t.name, taken.tools, 'tool', this.opts.builtins as Set<string>),
        prompts: keep(c.prompts, (p) => p.prompt.name, taken.prompts, 'prompt'),
        resources: keep(c.resources, (r) => r.resource.uri, taken.resources, 'resource'),
        templates: keep(c.templates, (t) => t.template.uriTemplate, taken.templates, 'resource template'),
      };
      l.problems = [...l.problems.filter((p) => !p.message.includes(' is already ')), ...clash];
      for (const p of clash) log.warn(`plugin ${formatProblem(p)}`);
      this.contributions.set(file, contribution);
      owners.delete(file);
    }
    for (const gone of owners) this.contributions.set(gone, EMPTY_CONTRIBUTION);
    this.contributions.setStatus(this.status());
  }

  /** Every plugin file, what it adds and what is wrong with it (the dashboard shows these). */
  status(): PluginFileStatus[] {
    return [...this.loaded.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([file, l]) => ({
        file,
        kind: COMMAND_EXT.test(file) ? ('command' as const) : ('module' as const),
        tools: l.module?.disabled ? [] : l.contribution.tools.map((t) => t.name),
        prompts: l.contribution.prompts.map((p) => p.prompt.name),
        resources: [...l.contribution.resources.map((r) => r.resource.uri), ...l.contribution.templates.map((t) => t.template.uriTemplate)],
        problems: [...l.problems, ...(this.failures.get(file) ?? [])],
        off: l.off,
        ...(l.module?.disabled ? { disabled: l.module.disabled } : {}),
      }));
  }

  close(): void {
    this.closed = true;
    for (const l of this.loaded.values()) l.module?.close();
    clearInterval(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }
}

/** The folder's plugin files with a signature that changes when a file does (name, size, mtime). */
function listFiles(dir: string, ext: RegExp): { file: string; signature: string }[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => ext.test(n) && !n.startsWith('.')).sort().slice(0, MAX_FILES);
  } catch {
    return [];
  }
  const out: { file: string; signature: string }[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      // lstat: a symbolic link is listed (and refused by load) rather than followed.
      const st = fs.lstatSync(file);
      if (st.isSymbolicLink()) out.push({ file, signature: `link-${st.mtimeMs}` });
      else if (st.isFile()) out.push({ file, signature: `${st.size}-${st.mtimeMs}` });
    } catch {
      // Gone between the listing and the stat: the next scan sees it.
    }
  }
  return out;
}

/**
 * A plugin runs as the user: a symbolic link (its target's folder is not checked, and the target
 * could change between the check and the load; security review of plugins, finding B) or a file
 * another user could have written (POSIX modes) is not loaded.
 */
function unsafeToLoad(file: string): string | undefined {
  try {
    if (fs.lstatSync(file).isSymbolicLink()) {
      return `not loaded: ${file} is a symbolic link; Pincer loads only regular files in its own folder. Copy the file into ${path.dirname(file)} instead of linking it.`;
    }
  } catch (err) {
    return `cannot be read: ${errorMessage(err)}`;
  }
  if (process.platform === 'win32') return undefined;
  try {
    for (const p of [file, path.dirname(file)]) {
      // The folder may itself be a link (a dotfiles checkout): its target's modes are what count.
      const st = p === file ? fs.lstatSync(p) : fs.statSync(p);
      if (st.mode & 0o022) return `not loaded: ${p} is writable by other users (mode ${(st.mode & 0o777).toString(8)}). Run chmod go-w on it.`;
      if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return `not loaded: ${p} belongs to another user.`;
    }
  } catch (err) {
    return `cannot be read: ${errorMessage(err)}`;
  }
  return undefined;
}

/**
 * Reads a file that must not be a symbolic link at the moment it is opened (O_NOFOLLOW where the OS
 * has it); undefined when it is larger than a command tool may be (MAX_COMMAND_FILE_BYTES).
 */
function readNoFollow(file: string): string | undefined {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  try {
    if (fs.fstatSync(fd).size > MAX_COMMAND_FILE_BYTES) return undefined;
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}
