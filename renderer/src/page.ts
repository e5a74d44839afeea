import type { HubEvent } from './api.js';

/** One dashboard page: what it draws, and which hub events make it redraw. */
export interface Page {
  id: string;
  title: string;
  render(): Promise<HTMLElement>;
  reloadOn: string[];
  /** Handles an event in place; true when no redraw is needed. */
  onEvent?(e: HubEvent): boolean;
  tick?(): void;
}
