import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { createRuntime } from '../../main/calls/runtime.js';
import { tempHome } from '../helpers/env.js';

/*
 * createRuntime wires changes (settings, the project view, skills, jobs, plugins' contributions) into
 * events; every listener it adds is registered in its DisposableStore, so closing the runtime leaves
 * none behind on objects that may outlive it (a Settings a test or the tray still holds).
 */

test('closing a runtime releases every listener it wired, and its events stop', () => {
  const h = tempHome();
  const project = fs.mkdtempSync(path.join(h.home, 'project-'));
  try {
    const rt = createRuntime({ home: h.home, watch: false, projectDir: project, env: { PINCER_HOME: h.home } });
    const { jobs, skills } = rt.services;
    const counts = () => ({
      settingsChange: rt.settings.listenerCount('change'),
      settingsDiagnostics: rt.settings.listenerCount('diagnostics'),
      skills: skills.listenerCount('change'),
      jobs: jobs.listenerCount('event'),
    });
    const open = counts();
    assert.ok(open.settingsChange > 0 && open.settingsDiagnostics > 0 && open.skills > 0 && open.jobs > 0, `the runtime listens: ${JSON.stringify(open)}`);
    const heard: string[] = [];
    rt.events.subscribe((e) => heard.push(e.type));
    skills.emit('change');
    assert.ok(heard.includes('skills_changed'), 'a skill change is an event while the runtime is open');

    rt.close();
    assert.deepEqual(counts(), { settingsChange: 0, settingsDiagnostics: 0, skills: 0, jobs: 0 });
    heard.length = 0;
    skills.emit('change');
    assert.deepEqual(heard, [], 'nothing is published once the runtime is closed');
  } finally {
    h.cleanup();
  }
});
