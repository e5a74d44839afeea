import type { ElectronApi, Electron } from './electron-api.js';
import type { HubEvent } from '../tools/events.js';

/**
 * What the tray app tells the person with a desktop notification: only what needs them. Each kind
 * has its setting; callbacks are the model's reminders, for the model, and stay quiet unless asked.
 * `action` answers a click in the tray menu (connected, could not open…) and is always shown.
 */
export type NoticeKind = 'question' | 'job' | 'hub' | 'callback' | 'action';

export const NOTICE_SETTINGS = {
  question: 'NOTIFY_QUESTIONS',
  job: 'NOTIFY_JOB_FAILURES',
  hub: 'NOTIFY_HUB_PROBLEMS',
  callback: 'NOTIFY_CALLBACKS',
} as const satisfies Partial<Record<NoticeKind, string>>;

/** The settings a notice reads; none at hand (no hub started) means each key's default. */
export interface NoticeSettings {
  get(key: (typeof NOTICE_SETTINGS)[keyof typeof NOTICE_SETTINGS] | 'NOTIFY_SOUND'): boolean;
}

const DEFAULTS: Record<keyof typeof NOTICE_SETTINGS | 'sound', boolean> = { question: true, job: true, hub: true, callback: false, sound: false };

export interface Notice {
  kind: NoticeKind;
  title: string;
  body: string;
  /** The dashboard page a click opens. */
  page?: string;
  /** The title when several of this kind came within GROUP_MS: "Pincer: 3 questions waiting". */
  grouped?: (count: number) => string;
}

/** Notices of one kind this close together replace each other as one, counted, instead of stacking up. */
export const GROUP_MS = 60_000;

type Shown = Pick<Electron.Notification, 'show' | 'on' | 'close'>;

export class Notices {
  private last = new Map<NoticeKind, { shown: Shown; count: number; at: number }>();

  constructor(
    private electron: Pick<ElectronApi, 'Notification'>,
    private open: (page?: string) => void,
    private settings: () => NoticeSettings | undefined,
    private now: () => number = Date.now,
  ) {}

  private wanted(kind: NoticeKind): boolean {
    if (kind === 'action') return true;
    return this.settings()?.get(NOTICE_SETTINGS[kind]) ?? DEFAULTS[kind];
  }

  /** Shows `n` if its kind is on: silent unless NOTIFY_SOUND, grouped with the last one of its kind. Returns whether it was shown. */
  notify(n: Notice): boolean {
    if (!this.wanted(n.kind) || !this.electron.Notification.isSupported()) return false;
    const at = this.now();
    const prev = this.last.get(n.kind);
    const count = prev && n.grouped && at - prev.at < GROUP_MS ? prev.count + 1 : 1;
    if (count > 1) prev!.shown.close();
    const sound = this.settings()?.get('NOTIFY_SOUND') ?? DEFAULTS.sound;
    const shown = new this.electron.Notification({ title: count > 1 ? n.grouped!(count) : n.title, body: n.body, silent: !sound });
    if (n.page) shown.on('click', () => this.open(n.page));
    shown.show();
    this.last.set(n.kind, { shown, count, at });
    return true;
  }
}

/** The notice a hub event calls for, if any: a question waiting, a job that failed, a callback fired. */
export function noticeFor(e: HubEvent): Notice | undefined {
  if (e.type === 'question_asked') {
    return { kind: 'question', title: 'Pincer: a question for you', body: e.questions[0]?.question ?? 'A model is waiting for your answer.', page: 'questions', grouped: (n) => `Pincer: ${n} questions waiting for you` };
  }
  if (e.type === 'job_ended') {
    // A kill (by the person, the model or a timeout it set) is not a failure to report; an error exit or a lost job is.
    const failed = e.job.status === 'lost' || (e.job.status === 'exited' && e.job.exit_code !== 0);
    if (!failed) return undefined;
    const how = e.job.status === 'lost' ? 'was lost' : `failed (exit code ${e.job.exit_code})`;
    return { kind: 'job', title: `Pincer: background job #${e.job.id} ${how}`, body: e.job.command.slice(0, 200), page: 'jobs', grouped: (n) => `Pincer: ${n} background jobs failed` };
  }
  if (e.type === 'callback_fired') {
    return { kind: 'callback', title: 'Pincer: callback', body: e.text, page: 'callbacks', grouped: (n) => `Pincer: ${n} callbacks fired` };
  }
  return undefined;
}
