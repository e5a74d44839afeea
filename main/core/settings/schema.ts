import { z } from 'zod';

/**
 * Every setting Pincer reads, declared once: its type (which also parses the
 * text from the file; its `.describe()`, or a z.enum's choices, names the type for people), default and
 * description. The dashboard's Settings page is built from this list, and
 * `npm run docs:settings` writes the README's table from it
 * (test/fast/settings-table.test.ts fails while the two differ).
 */
const bool = z
  .string()
  .trim()
  .toLowerCase()
  .transform((v, ctx) => {
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    ctx.addIssue({ code: 'custom', message: `expected true or false, got "${v}"` });
    return z.NEVER;
  })
  .describe('true / false');

const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'expected a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .describe(`whole number ${min}–${max}`);

const text = z.string().describe('text');
const list = z.string().describe('comma-separated list');

/**
 * Who may set a key (ARCHITECTURE §5, trust levels). The user's own file and the
 * environment may set every key; a project's `.pincer/pincer-env.txt` only what
 * its trust allows:
 * - `user`: never from a project — the key widens access or chooses a program,
 *   a path or a destination (`why` says which, in the warning a project gets);
 * - `lower`: a number no higher than the hub's value (shorter, smaller, fewer);
 * - `toward`: a switch set only to its `safe` side (a project can turn a tool off, not on);
 * - `subset`: a comma-separated list keeping only items of the hub's list;
 * - `project`: anything valid, the key is a harmless convenience.
 */
export type Trust =
  | { level: 'user'; why: string }
  | { level: 'lower' }
  | { level: 'toward'; safe: boolean }
  | { level: 'subset' }
  | { level: 'project' };

/** The trust levels a key of value type T can have: `lower` only for numbers, `toward` only for switches. */
export type TrustFor<T> =
  | { level: 'user'; why: string }
  | { level: 'project' }
  | (T extends number ? { level: 'lower' } : never)
  | (T extends boolean ? { level: 'toward'; safe: boolean } : never)
  | (T extends string ? { level: 'subset' } : never);

const userOnly = (why: string) => ({ level: 'user', why }) as const;
/** Why a project may not set how long shared records are kept. */
const KEPT_FOR_ALL = 'it applies to what the shared pincer.db and jobs folder keep for every client';
const toward = (safe: boolean) => ({ level: 'toward', safe }) as const;
const LOWER = { level: 'lower' } as const;
const SUBSET = { level: 'subset' } as const;
const PROJECT = { level: 'project' } as const;

export interface SettingSpec<T> {
  schema: z.ZodType<T, string>;
  default: string;
  description: string;
  /** Required: a new key must say whether a project may set it. */
  trust: TrustFor<T>;
  /** Shown in the dashboard as a password field and never logged. */
  secret?: boolean;
  group: 'serving' | 'shell' | 'http' | 'workflow' | 'web' | 'desktop' | 'general';
}

function spec<T>(s: SettingSpec<T>): SettingSpec<T> {
  return s;
}

export const SETTINGS = {
  TOOLS: spec({ trust: toward(false), schema: bool, default: 'true', group: 'serving', description: 'Serve MCP tools. false pauses serving: tools/list is empty and calls answer "serving is paused" (the tray toggle sets this).' }),
  STREAMING: spec({ trust: toward(false), schema: bool, default: 'true', group: 'serving', description: 'Stream Bash output as progress notifications while a command runs, when the client asked for progress.' }),
  MODEL: spec({ trust: PROJECT, schema: text, default: 'sonnet', group: 'general', description: 'Model name kept for compatibility with scorpiox-env files; Pincer itself does not call a model.' }),
  HTTP_HOST: spec({ trust: userOnly('it decides who can reach the hub'), schema: z.string().trim().min(1, 'must not be empty').describe('address'), default: '127.0.0.1', group: 'http', description: 'Address the hub listens on. Anything but a loopback address also needs HTTP_ALLOW_REMOTE=true.' }),
  HTTP_PORT: spec({ trust: userOnly('it decides where the hub listens'),
    schema: z.string().trim().transform((v, ctx) => {
      if (v === 'auto') return 'auto' as const;
      if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 65535) return Number(v);
      ctx.addIssue({ code: 'custom', message: `expected a port number 1-65535 or "auto", got "${v}"` });
      return z.NEVER;
    }).describe('port 1–65535 or auto'),
    default: '7717',
    group: 'http',
    description: 'Port of the hub. "auto" takes the next free port when the default is taken.',
  }),
  HTTP_ALLOW_REMOTE: spec({ trust: userOnly('it opens the hub to other machines'), schema: bool, default: 'false', group: 'http', description: 'Allow HTTP_HOST to be a non-loopback address. Bash is remote code execution: only on networks you trust.' }),
  AUTH_TOKEN: spec({ trust: userOnly('it decides who can connect'), schema: text, default: '', secret: true, group: 'http', description: 'Bearer token every HTTP client must send. Generated at first start; rotate with `pincer token rotate`.' }),
  SESSION_IDLE_S: spec({ trust: userOnly('it applies to the whole hub, shared by every client'), schema: int(1, 86400), default: '1800', group: 'http', description: 'Seconds after which an idle MCP session over HTTP is closed.' }),
  MAX_SESSIONS: spec({ trust: userOnly('it applies to the whole hub, shared by every client'), schema: int(1, 10000), default: '256', group: 'http', description: 'Most concurrent MCP sessions (HTTP, SSE and WebSocket together, shared by every client). At the cap the session idle the longest gives way to a new client (one never used after it opened, once idle 5 s; else one idle a minute; never one with an open stream), and a session never used after its handshake is closed after 5 minutes.' }),
  MAX_STREAMS: spec({ trust: userOnly('it applies to the whole hub, shared by every client'), schema: int(1, 10000), default: '128', group: 'http', description: 'Most concurrent long-lived connections: SSE streams and WebSockets.' }),
  HTTP_STREAM_AFTER_MS: spec({ trust: userOnly('it applies to the whole hub, shared by every client'), schema: int(0, 600000), default: '100', group: 'http', description: 'Milliseconds a Streamable HTTP call may take before its answer is sent as an SSE stream instead of one JSON body (progress and questions stream at once). 0 streams every answer.' }),
  MAX_BODY_BYTES: spec({ trust: userOnly('it applies to the whole hub, shared by every client'), schema: int(1024, 1073741824), default: '4194304', group: 'http', description: 'Largest request body the hub accepts (413 beyond).' }),
  BASH_SHELL: spec({ trust: userOnly('it chooses the program that runs commands'), schema: z.enum(['auto', 'bash', 'powershell', 'cmd']), default: 'auto', group: 'shell', description: 'Shell for Bash and BackgroundBash. auto: the first that answers a probe command of bash (Git Bash on Windows), else PowerShell 7, else Windows PowerShell, else cmd.exe (sh on macOS and Linux); or bash, powershell (7, else 5.1) or cmd (Windows).' }),
  BASH_CWD: spec({ trust: userOnly('it chooses where commands run'), schema: text, default: '', group: 'shell', description: "Working directory of shell commands when the client gives none (no root, no pincer stdio folder). Empty means the account's home directory (passwd, the Windows profile), not HOME of the process that started the hub." }),
  BASH_TIMEOUT_MS: spec({ trust: LOWER, schema: int(100, 600000), default: '30000', group: 'shell', description: 'Default timeout of a Bash call in milliseconds (a call may ask for up to BASH_MAX_TIMEOUT_MS).' }),
  BASH_MAX_TIMEOUT_MS: spec({ trust: LOWER, schema: int(1000, 86400000), default: '600000', group: 'shell', description: 'Longest timeout a Bash call may ask for, in milliseconds.' }),
  BASH_TASK_AFTER_MS: spec({ trust: LOWER, schema: int(0, 600000), default: '10000', group: 'shell', description: 'For a client of the MCP tasks extension: a Bash command still running after this many milliseconds is answered as a task (run as a background job, so it outlives a hub restart); one that ends sooner is answered directly. 10 s keeps quick commands direct and stays well inside the 60 s request timeout of most clients.' }),
  BASH_OUTPUT_LIMIT: spec({ trust: LOWER, schema: int(1000, 10000000), default: '30000', group: 'shell', description: 'Characters of Bash output returned; longer output is cut in the middle with a note.' }),
  JOB_MAX_CONCURRENT: spec({ trust: LOWER, schema: int(1, 1000), default: '16', group: 'shell', description: 'Most background jobs running at once.' }),
  JOB_LOG_MAX_BYTES: spec({ trust: LOWER, schema: int(1024, 1099511627776), default: '268435456', group: 'shell', description: 'Bytes of output kept per background job; output beyond is dropped with a note.' }),
  JOB_READ_MAX_BYTES: spec({ trust: LOWER, schema: int(1024, 1048576), default: '65536', group: 'shell', description: 'Default bytes returned by one ReadBgOutput call.' }),
  JOB_WAIT_MAX_MS: spec({ trust: LOWER, schema: int(0, 55000), default: '25000', group: 'shell', description: 'Longest wait_ms a ReadBgOutput call may use (kept below common client timeouts of 60 s).' }),
  PLAN_APPROVAL: spec({ trust: toward(true), schema: bool, default: 'false', group: 'workflow', description: 'Ask the person to approve a plan when PlanMode exits (through the client, or the dashboard).' }),
  ASK_TIMEOUT_S: spec({ trust: LOWER, schema: int(5, 86400), default: '600', group: 'workflow', description: 'Seconds AskUserQuestion waits for an answer before saying nobody answered.' }),
  ASK_REPLY_S: spec({ trust: LOWER, schema: int(1, 55), default: '45', group: 'workflow', description: 'Seconds one AskUserQuestion call waits before answering that the question is still open, with its id to collect the answer later (kept below the 60 s timeout of most clients).' }),
  CALLBACK_MAX: spec({ trust: LOWER, schema: int(1, 8), default: '8', group: 'workflow', description: 'Most active SetCallback timers (slot ids 0 to CALLBACK_MAX-1).' }),
  ADDITIONAL_SKILLS: spec({ trust: userOnly('it adds folders of instructions and scripts from outside the project'), schema: list, default: '', group: 'workflow', description: 'More skill folders, comma-separated, searched after the built-in places.' }),
  IMAGE_MAX_EDGE: spec({ trust: LOWER, schema: int(64, 16384), default: '1568', group: 'web', description: 'Longest edge, in pixels, of an image sent to the client; larger images are scaled down.' }),
  IMAGE_MAX_BYTES: spec({ trust: LOWER, schema: int(10240, 104857600), default: '3932160', group: 'web', description: 'Largest encoded image sent to the client (3.75 MB); larger ones are recompressed or scaled down.' }),
  IMAGE_MAX_FILE_BYTES: spec({ trust: LOWER, schema: int(1024, 4294967296), default: '268435456', group: 'web', description: 'Largest image file ReadImage opens.' }),
  BROWSER_PATH: spec({ trust: userOnly('it chooses the program ReadDocs runs'), schema: text, default: '', group: 'web', description: 'Chrome, Chromium or Edge for ReadDocs. Empty: look in the usual places of this OS.' }),
  READDOCS_TIMEOUT_MS: spec({ trust: LOWER, schema: int(1000, 300000), default: '30000', group: 'web', description: 'How long ReadDocs waits for a page.' }),
  READDOCS_RENDER: spec({ trust: userOnly('it has the browser run the scripts of every page read'), schema: z.enum(['auto', 'always']), default: 'auto', group: 'web', description: 'When ReadDocs renders HTML pages in the browser. auto: where scripts can change the answer (next to no text as fetched, a short article on an app\'s page, a placeholder within the article) or wait_ms asks; always: every page.' }),
  READDOCS_WAIT_MAX_MS: spec({ trust: LOWER, schema: int(0, 60000), default: '10000', group: 'web', description: 'Cap on ReadDocs wait_ms (time to wait after load for late content).' }),
  READDOCS_MAX_BYTES: spec({ trust: LOWER, schema: int(1024, 1073741824), default: '20971520', group: 'web', description: 'Largest response ReadDocs downloads.' }),
  READDOCS_MAX_CHARS: spec({ trust: LOWER, schema: int(1000, 10000000), default: '40000', group: 'web', description: 'Characters of a page ReadDocs returns at once; pass offset to read on.' }),
  USER_AGENT_READDOCS: spec({ trust: userOnly('it decides what Pincer tells web sites it is'), schema: text, default: '', group: 'web', description: 'User agent of ReadDocs requests. Empty: the browser\'s own, or a Chrome-like one for plain fetches.' }),
  USER_AGENT_SEARCH: spec({ trust: userOnly('it decides what Pincer tells search engines it is'), schema: text, default: '', group: 'web', description: 'User agent of WebSearch requests. Empty: a current desktop Chrome.' }),
  SEARCH_ENGINES: spec({ trust: SUBSET,
    schema: list,
    default: 'wikipedia,duckduckgo,duckduckgo_lite,startpage,brave,mojeek,yahoo,qwant,bing,yandex,baidu,google,brave_api,marginalia,tavily,searxng',
    group: 'web',
    description: 'Engines WebSearch asks, comma-separated. Keyed engines (brave_api, marginalia, tavily, searxng) are used only when configured.',
  }),
  SEARCH_ENGINE_TIMEOUT_MS: spec({ trust: LOWER, schema: int(200, 60000), default: '4000', group: 'web', description: 'How long WebSearch waits for one engine.' }),
  SEARCH_DEADLINE_MS: spec({ trust: LOWER, schema: int(500, 120000), default: '6000', group: 'web', description: 'When WebSearch answers with what it has, at the latest.' }),
  SEARCH_REST_ERROR_S: spec({ trust: userOnly('engine rest times are shared by every client of the hub'), schema: int(0, 3600), default: '10', group: 'web', description: 'Seconds an engine is left alone after a timeout, a server error (5xx) or a network error; multiplied by the failures in a row, up to 12 times.' }),
  SEARCH_REST_BLOCKED_S: spec({ trust: userOnly('engine rest times are shared by every client of the hub'), schema: int(0, 86400), default: '180', group: 'web', description: 'Seconds an engine is left alone after refusing (HTTP 402/403), rate-limiting (429), answering an unreadable page or rejecting its configuration.' }),
  SEARCH_REST_CAPTCHA_S: spec({ trust: userOnly('engine rest times are shared by every client of the hub'), schema: int(0, 604800), default: '3600', group: 'web', description: 'Seconds an engine is left alone after showing a CAPTCHA or a page that needs a browser.' }),
  BRAVE_API_KEY: spec({ trust: userOnly('it decides whose account sees and pays for the searches'), schema: text, default: '', secret: true, group: 'web', description: 'Brave Search API key (enables brave_api).' }),
  TAVILY_API_KEY: spec({ trust: userOnly('it decides whose account sees and pays for the searches'), schema: text, default: '', secret: true, group: 'web', description: 'Tavily API key (enables tavily).' }),
  MARGINALIA_API_KEY: spec({ trust: userOnly('it decides whose account sees and pays for the searches'), schema: text, default: '', secret: true, group: 'web', description: 'Marginalia Search API key (enables marginalia); ask for one at https://about.marginalia-search.com/article/api.' }),
  ACTIVITY_RETENTION_DAYS: spec({ trust: userOnly('it applies to the record of every client kept in the shared pincer.db'), schema: int(1, 3650), default: '30', group: 'general', description: 'Days the dashboard keeps tool calls (Activity and per-tool statistics) in pincer.db; older calls are deleted.' }),
  ACTIVITY_MAX_CALLS: spec({ trust: userOnly('it applies to the record of every client kept in the shared pincer.db'), schema: int(100, 10000000), default: '100000', group: 'general', description: 'Most tool calls kept in pincer.db for Activity and statistics; the oldest go first.' }),
  NOTIFY_QUESTIONS: spec({ trust: userOnly('it concerns your desktop, not a project'), schema: bool, default: 'true', group: 'desktop', description: 'The tray app shows a desktop notification when a question waits for your answer (several within a minute become one, counted).' }),
  NOTIFY_JOB_FAILURES: spec({ trust: userOnly('it concerns your desktop, not a project'), schema: bool, default: 'true', group: 'desktop', description: 'The tray app shows a desktop notification when a background job exits with an error or is lost (a kill is not reported).' }),
  NOTIFY_HUB_PROBLEMS: spec({ trust: userOnly('it concerns your desktop, not a project'), schema: bool, default: 'true', group: 'desktop', description: 'The tray app shows a desktop notification when its hub cannot start, stops because its data folder went away, or hands over to pincer serve.' }),
  NOTIFY_CALLBACKS: spec({ trust: userOnly('it concerns your desktop, not a project'), schema: bool, default: 'false', group: 'desktop', description: "The tray app shows a desktop notification when a SetCallback fires. Off: callbacks are the model's reminders and reach it in its next tool result." }),
  NOTIFY_SOUND: spec({ trust: userOnly('it concerns your desktop, not a project'), schema: bool, default: 'false', group: 'desktop', description: 'Desktop notifications play the system sound. Off: they are silent.' }),
  JOB_RETENTION_DAYS: spec({ trust: userOnly(KEPT_FOR_ALL), schema: int(1, 36500), default: '30', group: 'general', description: 'Days an ended background job is kept (its row, its log and its files); older ones are deleted while the hub runs. Running jobs are never deleted.' }),
  JOB_MAX_KEPT: spec({ trust: userOnly(KEPT_FOR_ALL), schema: int(10, 10000000), default: '1000', group: 'general', description: 'Most ended background jobs kept; the oldest go first.' }),
  JOB_MAX_KEPT_BYTES: spec({ trust: userOnly(KEPT_FOR_ALL), schema: int(1048576, 1099511627776), default: '1073741824', group: 'general', description: 'Most bytes of output the logs of ended jobs keep together (1 GiB); past it the oldest ended jobs go first.' }),
  TASK_RETENTION_DAYS: spec({ trust: userOnly(KEPT_FOR_ALL), schema: int(1, 36500), default: '90', group: 'general', description: 'Days a finished TaskManager todo (archived or not) is kept after it finished. Open todos are never deleted.' }),
  QUESTION_RETENTION_DAYS: spec({ trust: userOnly(KEPT_FOR_ALL), schema: int(1, 36500), default: '30', group: 'general', description: 'Days an answered, declined or expired question is kept. Waiting questions are never deleted.' }),
  CALLBACK_RETENTION_DAYS: spec({ trust: userOnly(KEPT_FOR_ALL), schema: int(1, 36500), default: '30', group: 'general', description: 'Days a callback fire, and a callback that ended, is kept. Active callbacks are never deleted.' }),
  PLAN_RETENTION_DAYS: spec({ trust: userOnly(KEPT_FOR_ALL), schema: int(1, 36500), default: '90', group: 'general', description: 'Days a finished plan is kept (the current plan always is).' }),
  SEARXNG_URL: spec({ trust: userOnly('it decides where search queries are sent'), schema: text, default: '', group: 'web', description: 'Base URL of your SearXNG (enables searxng). It must allow JSON: list `json` under search.formats in its settings.yml.' }),
} as const;

export type SettingKey = keyof typeof SETTINGS;
export type SettingValues = { [K in SettingKey]: z.output<(typeof SETTINGS)[K]['schema']> };

export interface PatternSetting {
  /** The family as people write it, e.g. `TOOL_<NAME>`. */
  key: string;
  pattern: RegExp;
  schema: z.ZodType<unknown, string>;
  default: string;
  description: string;
  trust: Trust;
}

/** Families of keys declared by pattern: one per tool, one per skill, one per search engine URL. */
export const PATTERN_SETTINGS: readonly PatternSetting[] = [
  { key: 'TOOL_<NAME>', pattern: /^TOOL_[A-Z0-9_]+$/, schema: bool, default: 'true', trust: toward(false), description: 'Enable (true) or disable (false) one tool, named upper-cased, e.g. TOOL_BASH.' },
  { key: 'SEARCH_URL_<ENGINE>', pattern: /^SEARCH_URL_[A-Z0-9_]+$/, schema: z.string().trim().url('expected a URL').describe('URL'), default: '', trust: userOnly('it decides where search queries are sent'), description: 'Base URL of one search engine, e.g. SEARCH_URL_BING (tests point engines at local fakes).' },
  { key: 'SKILL_<NAME>', pattern: /^SKILL_[A-Z0-9_]+$/, schema: bool, default: 'true', trust: toward(false), description: 'Enable or disable one skill, named upper-cased with - as _, e.g. SKILL_CODE_REVIEW.' },
];

/** What every key, named or by pattern, has in common: how to parse it, its default and who may set it. */
export interface KeySpec {
  schema: z.ZodType<unknown, string>;
  default: string;
  trust: Trust;
  secret: boolean;
}

/**
 * The declaration of a key, looked up as an own property only: a key named like
 * an `Object.prototype` member (`constructor`, `toString`, `__proto__`) is
 * simply not a setting.
 */
export function specFor(key: string): KeySpec | undefined {
  if (Object.hasOwn(SETTINGS, key)) {
    const s: SettingSpec<unknown> = SETTINGS[key as SettingKey];
    return { schema: s.schema, default: s.default, trust: s.trust, secret: s.secret === true };
  }
  const fam = PATTERN_SETTINGS.find((p) => p.pattern.test(key));
  return fam && { schema: fam.schema, default: fam.default, trust: fam.trust, secret: false };
}

export function isKnownKey(key: string): boolean {
  return specFor(key) !== undefined;
}

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}

/** `TOOL_<NAME>`: the tool's name upper-cased, anything but letters and digits as _ (a plugin's `util.hash` is TOOL_UTIL_HASH). */
export function toolKey(toolName: string): string {
  return `TOOL_${toolName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export function skillKey(skillName: string): string {
  return `SKILL_${skillName.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}
