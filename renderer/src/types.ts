/** Shapes of the dashboard API's answers; the records themselves are the hub's own types. */
import type { CallRecord, ToolStats, MinuteBucket } from '../../main/hub/activity.js';
import type { SettingView, DiagnosticView } from '../../main/http/dashboard-settings.js';

export type { CallRecord, MinuteBucket, SettingView, DiagnosticView };

export interface Overview {
  version: string;
  serving: boolean;
  home: string;
  settingsFile: string;
  endpoints: Record<string, string>;
  sessions: { id: string; client?: string; transport: string; created: number; lastSeen: number }[];
  recent: CallRecord[];
  askTimeoutS: number;
  counts: { tools: number; jobsRunning: number; questionsPending: number; callbacks: number };
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  group: string;
  enabled: boolean;
  key: string;
  inputSchema: unknown;
  stats: ToolStats;
}

export interface PageProps {
  onSignedOut(): void;
  overview: Overview | undefined;
}
