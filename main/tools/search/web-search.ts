import { z } from 'zod';
import { defineTool, textResult } from '../types.js';
import { FAILURE_KINDS } from './engine-types.js';

export const webSearchTool = defineTool({
  name: 'WebSearch',
  title: 'Search the web',
  group: 'search',
  description:
    'Search the web with many engines at once (Wikipedia, DuckDuckGo, Startpage, Brave, Mojeek, Yahoo, Qwant, Bing, Yandex, Baidu, ' +
    'Google and any configured API engines) and get one merged, de-duplicated list: title, URL, snippet and which engines found it. ' +
    'Answers within a few seconds even when some engines are slow or blocked. Follow up with ReadDocs to read a result.',
  inputSchema: z.object({
    query: z.string().describe('The search query'),
    max_results: z.number().int().min(1, 'max_results must be 1 to 50').max(50, 'max_results must be 1 to 50').optional().describe('Most results to return (default 10)'),
  }),
  outputSchema: z.object({
    query: z.string(),
    results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string(), engines: z.array(z.string()) })),
    engines: z.array(
      z.object({
        engine: z.string(),
        status: z.string(),
        kind: z.enum(FAILURE_KINDS).optional().describe('Why it failed or rests: captcha, rate-limited, denied, timeout, server-error, network, unreadable, needs-browser, misconfigured'),
        results: z.number().int(),
        ms: z.number(),
        error: z.string().optional(),
      }),
    ),
    took_ms: z.number(),
  }),
  annotations: { title: 'Search the web', readOnlyHint: true, idempotentHint: false, openWorldHint: true },
  // Many engines or a browser: a client that follows tasks (io.modelcontextprotocol/tasks) gets the call as a task instead of waiting on it.
  taskSupport: 'optional',
  async handler(args, ctx) {
    const a = await ctx.services.search.search(args.query, args.max_results ?? 10, ctx.signal);
    const ok = a.engines.filter((e) => e.status === 'ok');
    const failed = a.engines.filter((e) => e.status !== 'ok' && e.status !== 'skipped');
    const lines = a.results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}${r.snippet ? `\n   ${r.snippet}` : ''}\n   [${r.engines.join(', ')}]`);
    const footer = [`${a.results.length} result(s) for "${a.query}" from ${ok.length} engine(s) in ${(a.ms / 1000).toFixed(1)} s.`];
    if (failed.length) footer.push(`Not used: ${failed.map((e) => `${e.engine} (${e.status === 'resting' ? e.error : `${e.kind ?? e.status}: ${e.error}`})`).join('; ')}.`);
    const body = a.results.length ? lines.join('\n\n') : 'No results. Try other words, or check the engines listed below.';
    return textResult(`${body}\n\n${footer.join('\n')}`, {
      query: a.query,
      results: a.results.map((r) => ({ title: r.title, url: r.url, snippet: r.snippet, engines: r.engines })),
      engines: a.engines.map((e) => ({ engine: e.engine, status: e.status, ...(e.kind ? { kind: e.kind } : {}), results: e.results, ms: e.ms, ...(e.error ? { error: e.error } : {}) })),
      took_ms: a.ms,
    });
  },
});
