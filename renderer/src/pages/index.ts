import type { FunctionComponent } from 'preact';
import type { PageProps } from '../types.js';
import { OverviewPage } from './overview.js';
import { ToolsPage } from './tools.js';
import { SettingsPage } from './settings.js';
import { TodosPage } from './todos.js';
import { JobsPage } from './jobs.js';
import { CallbacksPage } from './callbacks.js';
import { QuestionsPage } from './questions.js';
import { ActivityPage } from './activity.js';
import { SkillsPage } from './skills.js';
import { ConnectPage } from './connect.js';
import { WelcomePage } from './welcome.js';

export const PAGES = [
  { id: 'overview', title: 'Overview', component: OverviewPage },
  { id: 'connect', title: 'Connect', component: ConnectPage },
  { id: 'tools', title: 'Tools', component: ToolsPage },
  { id: 'settings', title: 'Settings', component: SettingsPage },
  { id: 'todos', title: 'Todos', component: TodosPage },
  { id: 'jobs', title: 'Jobs', component: JobsPage },
  { id: 'callbacks', title: 'Callbacks', component: CallbacksPage },
  { id: 'questions', title: 'Questions', component: QuestionsPage },
  { id: 'activity', title: 'Activity', component: ActivityPage },
  { id: 'skills', title: 'Skills', component: SkillsPage },
  // The tray app's first launch opens it; not in the navigation.
  { id: 'welcome', title: 'Welcome to Pincer', component: WelcomePage, hidden: true },
] as const satisfies readonly { id: string; title: string; component: FunctionComponent<PageProps>; hidden?: boolean }[];

export type PageId = (typeof PAGES)[number]['id'];
