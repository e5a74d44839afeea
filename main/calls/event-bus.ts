import { EventEmitter } from 'node:events';
import type { EventChannel, HubEvent, HubEventOf, HubEventType } from '../tools/events.js';

/** The process-wide bus. `subscribe` returns the function that undoes it, for disposable owners. */
export class EventBus implements EventChannel {
  private emitter = new EventEmitter<{ event: [HubEvent] }>();

  constructor() {
    // Every session and stream listens; their number is bounded by MAX_SESSIONS/MAX_STREAMS, not here.
    this.emitter.setMaxListeners(0);
  }

  publish(event: HubEvent): void {
    this.emitter.emit('event', event);
  }

  subscribe(listener: (event: HubEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Only events of one type, already narrowed. */
  on<T extends HubEventType>(type: T, listener: (event: HubEventOf<T>) => void): () => void {
    return this.subscribe((e) => {
      if (e.type === type) listener(e as HubEventOf<T>);
    });
  }

  get listenerCount(): number {
    return this.emitter.listenerCount('event');
  }
}
