import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { fakeClock } from '../helpers/in-process.js';
import { EventBus } from '../../main/calls/event-bus.js';
import { HandoverGate } from '../../main/hub/handover.js';

// The drain's grace period (hub/handover.ts), on a fake clock: the events are the ones the call core
// publishes (calls/calls.ts), on the hub's own bus.

const GRACE_MS = 10_000;

type Clock = ReturnType<typeof fakeClock>;

/** A gate on the hub's event bus and a fake clock, closed after `body`. */
async function withGate(t: TestContext, body: (clock: Clock, events: EventBus, gate: HandoverGate) => Promise<void>): Promise<void> {
  const clock = fakeClock(t);
  const events = new EventBus();
  const gate = new HandoverGate({ secret: Buffer.alloc(32), role: 'headless', events, graceMs: GRACE_MS, port: () => 0, refuse: () => undefined, onHandover: () => undefined, onStop: () => undefined });
  try {
    await body(clock, events, gate);
  } finally {
    gate.close();
  }
}

const started = (events: EventBus, id: string, tool = 'Bash') => events.publish({ type: 'tool_call_started', id, tool, args: '{}', at: Date.now() });
const finished = (events: EventBus, id: string, tool = 'Bash') => events.publish({ type: 'tool_call_finished', id, tool, ms: 1, isError: false, summary: '', at: Date.now() });

/** Whether `p` has settled once the pending timers and microtasks at this moment of the fake clock have run. */
async function settledBy<T>(p: Promise<T>, clock: Clock): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await clock.settle();
  return done;
}

test('a drain waits for the call in flight, and ends when it finishes within the grace period', (t) =>
  withGate(t, async (clock, events, gate) => {
    started(events, 'a');
    started(events, 'q', 'AskUserQuestion');
    const drained = gate.drain();
    await clock.advance(GRACE_MS / 2);
    assert.equal(await settledBy(drained, clock), false, 'the drain waits for the call in flight');
    finished(events, 'a');
    assert.equal(await settledBy(drained, clock), true, 'the drain ends once the call finished (a question waiting for a person does not hold it)');
    assert.deepEqual(await drained, { unfinished: 0 });
  }));

test('the grace period counts once: a second drain (after open connections closed) waits only for what is left of it', (t) =>
  withGate(t, async (clock, events, gate) => {
    started(events, 'a');
    const first = gate.drain();
    await clock.advance(GRACE_MS / 2);
    assert.equal(await settledBy(first, clock), false);
    await clock.advance(GRACE_MS / 2);
    assert.deepEqual(await first, { unfinished: 1 }, 'the call still running at the end of the grace period is counted');
    const second = gate.drain();
    assert.equal(await settledBy(second, clock), true, 'no second grace period: the hub goes at the end of the first');
    assert.deepEqual(await second, { unfinished: 1 });
  }));

test('a second drain within the grace period waits for the rest of it, not a new one', (t) =>
  withGate(t, async (clock, events, gate) => {
    started(events, 'a');
    started(events, 'b');
    const first = gate.drain();
    await clock.advance(GRACE_MS / 4);
    finished(events, 'a');
    assert.equal(await settledBy(first, clock), false, 'b still runs');
    finished(events, 'b');
    assert.deepEqual(await first, { unfinished: 0 });
    // A call that reached the hub on a connection still open (served to the end) starts afterwards.
    started(events, 'c');
    const second = gate.drain();
    await clock.advance(GRACE_MS / 2);
    assert.equal(await settledBy(second, clock), false, 'the rest of the grace period is not over yet');
    await clock.advance(GRACE_MS / 4);
    assert.equal(await settledBy(second, clock), true, 'ended with the first grace period, not a whole one after the second look began');
    assert.deepEqual(await second, { unfinished: 1 });
  }));
