/**
 * Connecting a client from the dashboard: the contract between the hub, which serves it
 * (http/dashboard/connect-api.ts), and `main/connect/connect-service.ts`, which does it. Only the hub's creator
 * (`pincer serve`, the tray app) knows how a client should start this Pincer, so it makes the service
 * and hands it to the hub (ARCHITECTURE §2): the layers below never import connect/.
 */

/** One client as the Connect page and the first-launch window show it. */
export interface ClientConnectView {
  id: string;
  name: string;
  /** The config file Pincer edits (user scope). */
  file: string;
  connected: boolean;
  /** The client looks installed here: its config file or folder exists. */
  found: boolean;
  /** Claude Desktop's one-click bundle install is offered instead of (before) the config edit. */
  bundle: boolean;
  /** The same change from a terminal. */
  command: string;
}

/** What one click did, and how to undo it. */
export interface ConnectOutcome {
  id: string;
  name: string;
  action: 'connected' | 'disconnected' | 'bundle';
  /** False when the file already said so (connected twice, or nothing to remove). */
  changed: boolean;
  file: string;
  /** The file as it was before, kept beside it. */
  backup?: string;
  /** Pincer's entry as written (JSON), for connect. */
  entry?: string;
  /** What the person does next (restart or reload the client), and what the client will ask. */
  next: string;
  /** How to take it back. */
  undo: string;
}

export interface ConnectService {
  clients(): ClientConnectView[];
  /** Throws a UserError (a broken config file, an unknown client) with what to do. */
  connect(id: string): Promise<ConnectOutcome>;
  disconnect(id: string): Promise<ConnectOutcome>;
  /** Claude Desktop's bundle, opened with Claude Desktop: only where the app can open files (the tray app). */
  installBundle?(): Promise<ConnectOutcome>;
}
