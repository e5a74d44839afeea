/** The answers of the dashboard API, typed by the hub's own view builders (import type only: nothing of main is bundled). */
import type { CallRecord, MinuteBucket } from '../../main/calls/activity-recorder.js';
import type { SettingView, DiagnosticView } from '../../main/http/dashboard/setting-views.js';
import type { OverviewView, ToolsView, ToolView, SettingsPageView, TodosView, TodoView, OneTodoView, PlanView, JobsView, JobView, OneJobView, McpTasksView, CallbacksView, SkillsView, ActivityView, FacetsView, KeptView, MinutesView } from '../../main/http/dashboard/pages.js';

export type { CallRecord, MinuteBucket, SettingView, DiagnosticView, ToolsView, SettingsPageView, TodosView, TodoView, OneTodoView, PlanView, JobsView, JobView, OneJobView, McpTasksView, CallbacksView, SkillsView, ActivityView, FacetsView, KeptView, MinutesView };
export type { EnginesView } from '../../main/http/hub-api.js';
export type Overview = OverviewView;
export type Tool = ToolView;

export interface PageProps {
  onSignedOut(): void;
  overview: Overview | undefined;
}
export type { ConnectView, ClientConnectView, ConnectOutcome } from '../../main/http/dashboard/connect-api.js';
