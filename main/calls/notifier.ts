import type { EventBus } from './event-bus.js';
import type { CallbacksRepo } from '../store/callbacks.js';
import { fireText } from '../tools/workflow/scheduler.js';
import type { Caller } from './caller.js';
import { DisposableStore, type Disposer } from '../core/disposables.js';

export const TODOS_URI = 'pincer://tasks';
export const PLAN_URI = 'pincer://plan';

/** What a connected client can be told without asking (one per session or per stateless handler). */
export interface Peer {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged?(): void;
  resourceUpdated(uri: string): void;
  /** Delivers callback fires as they happen, where the client has a channel for them. */
  callbackFired?(text: string): void;
  /**
   * Whether the client asked for such notifications now (a log level it set):
   * a fire is claimed as notified only when it is sent to a client that wants it.
   */
  wantsFires?(): boolean;
  /** The client these notifications belong to, when it has one. */
  caller?: Caller;
}

/**
 * The one place that turns hub events into client notifications: list
 * changes, resource updates and callback fires are fanned out from here to
 * every registered peer.
 */
export class Notifier {
  private peers = new Set<Peer>();
  private owned = new DisposableStore();

  constructor(events: EventBus, private callbacks: CallbacksRepo) {
    this.owned.add(
      events.subscribe((e) => {
        switch (e.type) {
          case 'tools_changed':
            this.each((p) => p.toolsChanged());
            break;
          case 'skills_changed':
            this.each((p) => {
              p.toolsChanged();
              p.promptsChanged();
            });
            break;
          case 'plugins_changed':
            this.each((p) => {
              if (e.kinds.includes('tools')) p.toolsChanged();
              if (e.kinds.includes('prompts')) p.promptsChanged();
              if (e.kinds.includes('resources')) p.resourcesChanged?.();
            });
            break;
          case 'tasks_changed':
            this.each((p) => p.resourceUpdated(TODOS_URI));
            break;
          case 'plan_changed':
            this.each((p) => p.resourceUpdated(PLAN_URI));
            break;
          case 'callback_fired':
            this.deliverFires();
            break;
        }
      }),
    );
    // Fires claimed by another Pincer process reach this one's clients through the database.
    this.owned.interval(() => this.deliverFires(), 1000);
  }

  register(peer: Peer): Disposer {
    this.peers.add(peer);
    return () => this.peers.delete(peer);
  }

  get size(): number {
    return this.peers.size;
  }

  private deliverFires(): void {
    for (const p of this.peers) {
      if (!p.callbackFired || !p.caller?.hasCallbacks) continue;
      try {
        if (p.wantsFires && !p.wantsFires()) continue;
        for (const f of this.callbacks.claimNotifications(p.caller.id)) p.callbackFired(fireText(f));
      } catch {
        // A read-only or closing database: the fire stays for the caller's next result.
      }
    }
  }

  private each(fn: (p: Peer) => void): void {
    for (const p of this.peers) {
      try {
        fn(p);
      } catch {
        // A peer whose connection is going away must not stop the others.
      }
    }
  }

  close(): void {
    this.owned.dispose();
    this.peers.clear();
  }
}
