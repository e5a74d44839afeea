import { h, toast } from './dom.js';
import { api } from './api.js';
import type { Page } from './page.js';

type Settings = {
  file: string;
  text: string;
  keys: { key: string; description: string; default: string; value: string; source: string; secret: boolean; group: string }[];
  patterns: { pattern: string; description: string; default: string }[];
  diagnostics: { file: string; line: number; key?: string; severity: string; message: string }[];
};

// While the person is typing, a change from elsewhere must not overwrite their edit.
let dirty = false;

export const settingsPage: Page = {
  id: 'settings',
  title: 'Settings',
  reloadOn: ['settings_changed'],
  onEvent: () => dirty,
  async render() {
    const s = await api<Settings>('/api/settings');
    const problems = h('ul', { class: 'diag', role: 'alert' }, ...s.diagnostics.map((d) => h('li', { class: d.severity === 'error' ? 'err' : 'warn' }, `${d.file === s.file ? '' : `${d.file} `}${d.line ? `line ${d.line}: ` : ''}${d.message}`)));
    const editor = h('textarea', { id: 'settings-file', 'aria-label': `Contents of ${s.file}`, spellcheck: 'false' });
    editor.value = s.text;
    dirty = false;
    editor.addEventListener('input', () => (dirty = true));
    const save = h('button', {
      class: 'primary',
      id: 'save-settings',
      onclick: async () => {
        try {
          await api('/api/settings/file', { method: 'PUT', body: { text: editor.value } });
          dirty = false;
          problems.replaceChildren();
          toast('Saved and applied');
        } catch (err) {
          const errors = ((err as { data?: { errors?: { line: number; message: string }[] } }).data?.errors ?? []).map((e) => h('li', { class: 'err' }, `line ${e.line}: ${e.message}`));
          problems.replaceChildren(...(errors.length ? errors : [h('li', { class: 'err' }, (err as Error).message)]));
        }
      },
    }, 'Save');
    const rows = s.keys.map((k) => {
      const input = h('input', { type: k.secret ? 'password' : 'text', value: k.value, 'aria-label': k.key, 'data-key': k.key, size: 28 });
      return h(
        'tr',
        {},
        h('td', {}, h('code', {}, k.key), h('div', { class: 'muted' }, k.source === 'default' ? 'default' : `from ${k.source}`)),
        h('td', {}, k.description, h('div', { class: 'muted' }, `Default: ${k.default || '(empty)'}`)),
        h(
          'td',
          {},
          h(
            'form',
            {
              class: 'row',
              onsubmit: async (ev: Event) => {
                ev.preventDefault();
                try {
                  await api('/api/settings/key', { body: { key: k.key, value: input.value } });
                  toast(`${k.key} saved`);
                } catch (err) {
                  toast((err as Error).message);
                }
              },
            },
            input,
            h('button', { type: 'submit' }, 'Set'),
          ),
        ),
      );
    });
    return h(
      'div',
      {},
      h('div', { class: 'panel' }, h('h2', {}, s.file), h('p', { class: 'muted' }, 'Edit the file as text: comments, blank lines and order are kept. Changes apply at once, without a restart.'), editor, h('div', { class: 'row' }, save), problems),
      h('div', { class: 'panel' }, h('h2', {}, 'Every setting'), h('table', {}, h('tbody', {}, ...rows)), h('p', { class: 'muted' }, ...s.patterns.map((p) => h('span', {}, h('code', {}, p.pattern), ` — ${p.description} `)))),
    );
  },
};
