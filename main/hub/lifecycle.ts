import { logger } from '../core/log.js';
import type { HandoverTo } from './handover.js';

const log = logger('hub');

/** Why a hub ended: the one value every way of stopping it passes to its one shutdown path. */
export type ShutdownReason =
  /** A newcomer (`pincer serve --takeover`, the tray app) asked for the hub and takes it over. */
  | { kind: 'handover'; to: HandoverTo }
  /** `pincer stop` (a signed request, the same on every OS) asked it to stop. */
  | { kind: 'stop-request'; by: number }
  /** Its data folder no longer leads to it (home-watch.ts): nothing could find or stop it any more. */
  | { kind: 'home-lost'; reason: string }
  /** The process that owns it closed it: `by` says what asked (a signal to `pincer serve`, the tray's Quit), if anything did. */
  | { kind: 'closed'; by?: string };

/** One named step of the drain; run in order, each one's failure logged and the next run anyway. */
export interface DrainStep {
  name: string;
  run(): void | Promise<void>;
}

/** Runs the drain in its order; a step that fails is logged with its name and does not keep the later ones. */
export async function runDrain(steps: readonly DrainStep[]): Promise<void> {
  for (const step of steps) {
    try {
      await step.run();
    } catch (err) {
      log.warn(`shutting down: "${step.name}" failed: ${(err as Error).message}`, { err });
    }
  }
}

/** What the hub must be able to do for each reason before and after its drain. */
export interface ShutdownDeps {
  /** Stops new calls and lets those in flight finish within the grace period (handover.ts); how depends on why. */
  drainCalls(reason: ShutdownReason): Promise<{ unfinished: number }>;
  /** A handover keeps pending questions for the newcomer rather than cancelling them. */
  keepPendingQuestions(): void;
  /** The drain itself, in order. */
  steps: readonly DrainStep[];
}

/**
 * The one shutdown path: the first reason wins, later calls wait for the same end. Every reason but
 * the owner's own close lets calls in flight finish first (the owner has decided to go now).
 */
export function shutdownPath(deps: ShutdownDeps): { shutdown(reason: ShutdownReason): Promise<void>; ended: Promise<ShutdownReason>; started(): boolean } {
  let ending: Promise<void> | undefined;
  let endedWith: (reason: ShutdownReason) => void = () => undefined;
  const ended = new Promise<ShutdownReason>((resolve) => (endedWith = resolve));
  const shutdown = (reason: ShutdownReason) =>
    (ending ??= (async () => {
      if (reason.kind === 'home-lost') log.warn(`stopping: ${reason.reason}, so no client or "pincer stop" can find this hub (pid ${process.pid}) any more; background jobs keep running`);
      if (reason.kind !== 'closed') {
        const { unfinished } = await deps.drainCalls(reason);
        if (unfinished) log.warn(unfinishedWarning(reason, unfinished));
      }
      if (reason.kind === 'handover') deps.keepPendingQuestions();
      log.info(reason.kind === 'closed' && reason.by ? `hub shutting down (${reason.by})` : 'hub shutting down');
      await runDrain(deps.steps);
      if (reason.kind === 'handover') log.info(`handed over to pid ${reason.to.pid}`);
      if (reason.kind === 'stop-request') log.info(`stopped at the request of pid ${reason.by}`);
      endedWith(reason);
    })());
  return { shutdown, ended, started: () => ending !== undefined };
}

function unfinishedWarning(reason: ShutdownReason, unfinished: number): string {
  return reason.kind === 'handover'
    ? `handing over with ${unfinished} call(s) unfinished after the grace period; their clients are told to send them again`
    : `stopping with ${unfinished} call(s) unfinished after the grace period`;
}
