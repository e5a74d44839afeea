import type { FunctionComponent } from 'preact';
import type { PageProps } from '../types.js';
import { OverviewPage } from './overview.js';
import { ToolsPage } from './tools.js';
import { SettingsPage } from './settings.js';
import { TasksPage } from './tasks.js';
import { JobsPage } from './jobs.js';
import { CallbacksPage } from './callbacks.js';
import { QuestionsPage } from './questions.js';
import { ActivityPage } from './activity.js';
import { SkillsPage } from './skills.js';

export const PAGES = [
  { id: 'overview', title: 'Overview', component: OverviewPage },
  { id: 'tools', title: 'Tools', component: ToolsPage },
  { id: 'settings', title: 'Settings', component: SettingsPage },
  { id: 'tasks', title: 'Tasks', component: TasksPage },
  { id: 'jobs', title: 'Jobs', component: JobsPage },
  { id: 'callbacks', title: 'Callbacks', component: CallbacksPage },
  { id: 'questions', title: 'Questions', component: QuestionsPage },
  { id: 'activity', title: 'Activity', component: ActivityPage },
  { id: 'skills', title: 'Skills', component: SkillsPage },
] as const satisfies readonly { id: string; title: string; component: FunctionComponent<PageProps> }[];

export type PageId = (typeof PAGES)[number]['id'];
