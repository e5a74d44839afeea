import { App, PostMessageTransport, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { useEffect, useState } from 'preact/hooks';

/**
 * The view's one line to the world: ext-apps' App over postMessage to the host. The host passes the tool
 * call's input and result, and calls Pincer's tools for the view (callServerTool); the view opens links
 * through the host too. Nothing else leaves the page: no fetch, no socket, no token.
 */

/** What the host has told the view about the tool call it shows. */
export interface CallState {
  input?: Record<string, unknown>;
  result?: CallToolResult;
  cancelled?: string;
  context?: McpUiHostContext;
}

type Listener = (s: CallState) => void;

let state: CallState = {};
const listeners = new Set<Listener>();

function update(change: Partial<CallState>): void {
  state = { ...state, ...change };
  for (const l of listeners) l(state);
}

/** The call as the host has told it so far, re-rendered on every change. */
export function useCall(): CallState {
  const [s, set] = useState(state);
  useEffect(() => {
    listeners.add(set);
    set(state);
    return () => void listeners.delete(set);
  }, []);
  return s;
}

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
}

export const app = new App({ name: 'Pincer', version: '1' }, {}, { autoResize: true });

/** Connects to the host; every handler is set before, so nothing the host sends first is missed. */
export async function connect(): Promise<void> {
  app.ontoolinput = (p) => update({ input: p.arguments ?? {} });
  app.ontoolresult = (r) => update({ result: r });
  app.ontoolcancelled = (p) => update({ cancelled: p.reason ?? 'The call was cancelled.' });
  app.onhostcontextchanged = (ctx) => {
    const merged = { ...state.context, ...ctx };
    applyContext(merged);
    update({ context: merged });
  };
  // Polls end with the page; nothing is left to save.
  app.onteardown = () => ({});
  await app.connect(new PostMessageTransport(window.parent, window.parent));
  const ctx = app.getHostContext();
  applyContext(ctx);
  update({ context: ctx });
}

/** A tool of Pincer's, called through the host: its structured result, or an Error with the tool's own message. */
export async function callTool<T>(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
  const r = await app.callServerTool({ name, arguments: args }, { signal, timeout: 60_000 });
  if (r.isError) throw new Error(textOf(r) || `${name} failed.`);
  if (!r.structuredContent) throw new Error(`${name} answered without data.`);
  // The hub validated it against the tool's output schema, whose type this is (main/tools/views).
  return r.structuredContent as T;
}

/** A result's structured content, when it has some. */
export function structuredOf(r: CallToolResult | undefined): Record<string, unknown> | undefined {
  const sc: unknown = r?.structuredContent;
  return sc && typeof sc === 'object' && !Array.isArray(sc) ? { ...sc } : undefined;
}

export function textOf(r: CallToolResult): string {
  return r.content
    .filter((c) => c.type === 'text')
    .map((c) => ('text' in c ? c.text : ''))
    .join('\n');
}

/** Opens a dashboard page in the person's browser, through the host. */
export async function openLink(url: string): Promise<string | undefined> {
  try {
    const r = await app.openLink({ url });
    return r.isError ? 'The chat app did not open the link.' : undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A number argument of the call, when it is one. */
export function numberArg(input: Record<string, unknown> | undefined, key: string): number | undefined {
  const v = input?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function stringArg(input: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = input?.[key];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Calls `step` again and again while the view lives: each call is a long poll on the hub (it answers
 * when something changed or after its wait), at most one per `minGapMs`. A failure waits longer before
 * the next try and is shown until a call succeeds.
 */
export function usePoll(step: (signal: AbortSignal) => Promise<boolean>, deps: unknown[], onProblem: (text: string | undefined) => void, minGapMs = 1000): void {
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      let failures = 0;
      while (!stop.signal.aborted) {
        const started = Date.now();
        try {
          const more = await step(stop.signal);
          failures = 0;
          onProblem(undefined);
          if (!more) return;
        } catch (err) {
          if (stop.signal.aborted) return;
          failures++;
          onProblem(err instanceof Error ? err.message : String(err));
        }
        const gap = failures ? Math.min(30_000, 1000 * 2 ** failures) : minGapMs - (Date.now() - started);
        if (gap > 0) await new Promise((r) => setTimeout(r, gap));
      }
    })();
    return () => stop.abort();
  }, deps);
}
