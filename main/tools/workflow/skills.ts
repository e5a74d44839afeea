import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import type { SettingsView } from '../../core/settings/view.js';
import { skillKey } from '../../core/settings/schema.js';
import { guarded, logger } from '../../core/log.js';
import { readYaml } from '../../core/yaml-data.js';

const skillsLog = logger('skills');

export interface Skill {
  name: string;
  description: string;
  dir: string;
  file: string;
  body: string;
  /** Which search folder it came from. */
  source: string;
  /** Values offered when a client completes the skill's `arguments` (front matter `completions:`, a list). */
  completions?: string[];
}

export interface SkillProblem {
  file: string;
  line: number;
  message: string;
}

const MAX_FILES = 200;

/** Splits `---\nyaml\n---\nbody`; returns line numbers relative to the file. */
export function parseSkillFile(text: string, file: string, fallbackName: string): { skill?: Omit<Skill, 'dir' | 'file' | 'source'>; problem?: SkillProblem } {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  if (!normalized.startsWith('---\n')) {
    return { problem: { file, line: 1, message: 'SKILL.md must start with YAML front matter between --- lines (name, description).' } };
  }
  const end = normalized.indexOf('\n---', 3);
  if (end < 0) return { problem: { file, line: 1, message: 'the front matter is not closed: add a line with --- after it.' } };
  const yamlText = normalized.slice(4, end + 1);
  // Nothing in a front matter can throw (a project's skills come from a cloned repository): each failure is a problem.
  const read = readYaml(yamlText);
  // Lines of the YAML start on the file's second line (after the opening ---).
  if (!read.ok) return { problem: { file, line: read.line + 1, message: `front matter: ${read.message}` } };
  const meta = read.data as Record<string, unknown> | null;
  if (!meta || typeof meta !== 'object') return { problem: { file, line: 2, message: 'front matter must be a mapping with name and description.' } };
  const name = typeof meta.name === 'string' && meta.name.trim() ? meta.name.trim() : fallbackName;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) return { problem: { file, line: 2, message: `name "${name}" may use letters, digits, ., _ and - only.` } };
  const description = typeof meta.description === 'string' ? meta.description.trim() : '';
  if (!description) return { problem: { file, line: 2, message: 'front matter needs a description: it tells the model when to use the skill.' } };
  const body = normalized.slice(end + 4).replace(/^[^\n]*\n/, '');
  const completions = meta.completions;
  if (completions !== undefined && !(Array.isArray(completions) && completions.every((c) => typeof c === 'string' || typeof c === 'number'))) {
    return { problem: { file, line: 2, message: 'completions must be a list of values, e.g. completions: [staging, production].' } };
  }
  return { skill: { name, description, body, ...(completions ? { completions: completions.map(String) } : {}) } };
}

/**
 * The skills on disk, in priority order: the project's `.claude/skills` (when the process serves one project), the
 * user's `~/.claude/skills`, `PINCER_HOME/skills`, then ADDITIONAL_SKILLS. It
 * rescans when anything changes and emits `change`.
 */
export class SkillCatalog extends EventEmitter<{ change: [] }> {
  private skills = new Map<string, Skill>();
  private problems: SkillProblem[] = [];
  private signature = '';
  private timer?: NodeJS.Timeout;
  private watchers: fs.FSWatcher[] = [];

  constructor(private settings: SettingsView, private pincerSkills: string, private projectDir?: string) {
    super();
    this.rescan();
  }

  folders(): string[] {
    const extra = this.settings
      .get('ADDITIONAL_SKILLS')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => path.resolve(s.replace(/^~(?=$|[\\/])/, os.homedir())));
    return [...(this.projectDir ? [path.join(this.projectDir, '.claude', 'skills')] : []), path.join(os.homedir(), '.claude', 'skills'), this.pincerSkills, ...extra];
  }

  list(): Skill[] {
    return [...this.skills.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  enabled(): Skill[] {
    return this.list().filter((s) => this.isEnabled(s.name));
  }

  isEnabled(name: string): boolean {
    return this.settings.flag(skillKey(name));
  }

  get(name: string): Skill | undefined {
    return this.skills.get(name) ?? [...this.skills.values()].find((s) => s.name.toLowerCase() === name.toLowerCase());
  }

  diagnostics(): SkillProblem[] {
    return [...this.problems];
  }

  /** Files a skill bundles (absolute paths), so the model can read or run them. */
  files(skill: Skill): string[] {
    const out: string[] = [];
    const walk = (dir: string) => {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        // Gone since it was listed, or not ours to read: it holds no skills we can load.
        return;
      }
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (out.length >= MAX_FILES) return;
        if (e.name.startsWith('.')) continue;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile() && p !== skill.file) out.push(p);
      }
    };
    walk(skill.dir);
    return out;
  }

  rescan(): boolean {
    const sig = this.computeSignature();
    if (sig === this.signature) return false;
    this.signature = sig;
    const skills = new Map<string, Skill>();
    const problems: SkillProblem[] = [];
    for (const folder of this.folders()) {
      for (const entry of safeReaddir(folder)) {
        const dir = path.join(folder, entry);
        const file = path.join(dir, 'SKILL.md');
        let text: string;
        try {
          text = fs.readFileSync(file, 'utf8');
        } catch (err) {
          // A folder without SKILL.md is not a skill; one whose SKILL.md cannot be read is a skill the person should hear about.
          const code = (err as NodeJS.ErrnoException).code;
          if (code !== 'ENOENT' && code !== 'ENOTDIR') problems.push({ file, line: 1, message: `cannot be read (${code ?? (err as Error).message})` });
          continue;
        }
        const r = parseSkillFile(text, file, entry);
        if (r.problem) {
          problems.push(r.problem);
          continue;
        }
        if (!skills.has(r.skill!.name)) skills.set(r.skill!.name, { ...r.skill!, dir, file, source: folder });
      }
    }
    this.skills = skills;
    this.problems = problems;
    return true;
  }

  /** Watches the folders (and polls, since folders may not exist yet and fs.watch is not everywhere reliable). */
  watch(pollMs = 1000): void {
    const check = guarded(skillsLog, 'skills rescan', () => {
      if (this.rescan()) this.emit('change');
    });
    this.timer = setInterval(check, pollMs);
    this.timer.unref();
    for (const folder of this.folders()) {
      try {
        const w = fs.watch(folder, { recursive: true, persistent: false }, () => setTimeout(check, 50));
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch {
        // Missing folder: the poll notices when it appears.
      }
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
  }

  private computeSignature(): string {
    const parts: string[] = [this.folders().join('|')];
    for (const folder of this.folders()) {
      for (const entry of safeReaddir(folder)) {
        try {
          const st = fs.statSync(path.join(folder, entry, 'SKILL.md'));
          parts.push(`${folder}/${entry}:${st.mtimeMs}:${st.size}`);
        } catch {
          // No SKILL.md there (yet): part of the stamp, so its arrival is noticed.
          parts.push(`${folder}/${entry}:-`);
        }
      }
    }
    return parts.join('\n');
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => e.name).sort();
  } catch {
    // A skill folder that does not exist (yet) holds no skills; ADDITIONAL_SKILLS may name one to come.
    return [];
  }
}

export function renderSkill(skill: Skill, args: string | undefined): string {
  const a = args ?? '';
  if (skill.body.includes('$ARGUMENTS')) return skill.body.split('$ARGUMENTS').join(a);
  return a ? `${skill.body.trimEnd()}\n\nARGUMENTS: ${a}\n` : skill.body;
}
