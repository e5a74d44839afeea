import { h, empty, switchInput, toast } from './dom.js';
import { api } from './api.js';
import type { Page } from './page.js';

type Skills = { folders: string[]; skills: { name: string; description: string; folder: string; source: string; enabled: boolean }[]; problems: { file: string; line: number; message: string }[] };

export const skillsPage: Page = {
  id: 'skills',
  title: 'Skills',
  reloadOn: ['skills_changed', 'settings_changed'],
  async render() {
    const s = await api<Skills>('/api/skills');
    const list = s.skills.length
      ? s.skills.map((k) => h('section', { class: 'panel row' }, switchInput(k.enabled, `${k.name} enabled`, async (on) => { await api(`/api/skills/${encodeURIComponent(k.name)}`, { body: { enabled: on } }); toast(`${k.name} ${on ? 'on' : 'off'}`); }), h('div', {}, h('strong', {}, k.name), h('div', {}, k.description), h('div', { class: 'muted' }, k.folder))))
      : [h('div', { class: 'panel' }, empty('No skills installed', 'A skill is a folder with a SKILL.md (YAML front matter with name and description, then instructions). Put one in any folder below.'))];
    return h(
      'div',
      {},
      ...list,
      s.problems.length ? h('div', { class: 'panel' }, h('h2', {}, 'Problems'), h('ul', { class: 'diag' }, ...s.problems.map((p) => h('li', { class: 'err' }, `${p.file}:${p.line}: ${p.message}`)))) : null,
      h('div', { class: 'panel' }, h('h2', {}, 'Searched folders, first wins'), h('ol', {}, ...s.folders.map((f) => h('li', {}, h('code', {}, f))))),
    );
  },
};
