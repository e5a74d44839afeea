import { z } from 'zod';
import { defineTool, type ToolContext, type ToolResult } from '../types.js';
import { UserError } from '../../core/errors.js';
import { formatBytes } from '../../core/format.js';
import { fetchUrl } from './http-fetch.js';
import { prepareImage, describeImage } from '../media/image.js';
import { decodeHtml, decodeText } from './decode.js';
import { LINK_STYLES } from './link-styles.js';
import { renderReportSchema, type RenderReport } from './render-report.js';

const FORMATS = ['markdown', 'text', 'html'] as const;

function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UserError(`ReadDocs: "${raw}" is not a URL. Pass a full address such as https://example.com/docs.`, 'INVALID_INPUT');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(`ReadDocs: only http and https URLs can be read; ${url.protocol} URLs are refused. Use ReadImage or Bash for local files.`, 'UNSUPPORTED');
  }
  return url;
}

/** Cuts a long page at `limit` characters from `offset`, saying where and how to read on. */
function page(text: string, offset: number, limit: number): { text: string; note?: string; next?: number } {
  if (offset > 0 && offset >= text.length) throw new UserError(`ReadDocs: offset ${offset} is past the end of the page (${text.length} characters).`, 'INVALID_INPUT');
  if (offset === 0 && text.length <= limit) return { text };
  const end = Math.min(text.length, offset + limit);
  const more = end < text.length;
  return {
    text: text.slice(offset, end),
    note: `[Characters ${offset}–${end} of ${text.length}.${more ? ` Call ReadDocs again with offset=${end} to read on.` : ' This is the end.'}]`,
    next: more ? end : undefined,
  };
}

export const readDocsTool = defineTool({
  name: 'ReadDocs',
  title: 'Read a web page',
  group: 'web',
  description:
    'Fetch a URL and return its main content as markdown (default), plain text or HTML. A page whose text scripts build (an app shell, ' +
    'a placeholder in the article) is rendered in a real browser so JavaScript-built docs work; a complete article is answered as fetched. ' +
    'wait_ms renders any page and waits that much longer for late content. Markdown keeps link text in place and lists each URL ' +
    'once at the end as absolute URLs (links: "text" drops URLs, "inline" keeps them in place). PDFs come back as text, images as images, JSON and ' +
    'plain text as is. Long pages are cut; pass offset to read on. Only http and https URLs.',
  inputSchema: z.object({
    url: z.string().describe('The URL to fetch'),
    format: z.enum(FORMATS, { error: 'format must be markdown, text or html' }).optional().describe('Output format: text, html, or markdown'),
    wait_ms: z.number().int().min(0, 'wait_ms must be 0 or more').optional().describe('Render the page in the browser and wait this many ms more for late content'),
    offset: z.number().int().min(0, 'offset must be 0 or more').optional().describe('Character offset to continue reading a long page'),
    links: z
      .enum(LINK_STYLES, { error: 'links must be references, text or inline' })
      .optional()
      .describe('Markdown links: references (default: link text in place, each URL once, absolute, in a numbered list at the end), text (no URLs), inline ([text](url) where it stands)'),
  }),
  outputSchema: z.object({
    url: z.string(),
    final_url: z.string(),
    title: z.string(),
    format: z.string(),
    content_type: z.string(),
    rendered_with: z.string().describe('The browser whose rendering is shown, or "http" when the page is shown as fetched'),
    extracted_from: z.enum(['rendered', 'fetched']).nullable().describe('For HTML pages: whether the content shown is the page after its scripts ran in the browser, or as fetched (not rendered, the browser failed, or rendering added no text of its own or lost text the fetched page had: `render` says which); null for other types'),
    render: renderReportSchema.nullable().describe('For HTML pages: whether a browser rendered the page and why, and what came of it; null for other types'),
    charset: z.string().describe('How the bytes were decoded when not rendered by a browser, e.g. "windows-1252 (meta)"; empty otherwise'),
    total_chars: z.number().int(),
    next_offset: z.number().int().nullable(),
  }),
  annotations: { title: 'Read a web page', readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  // A client that follows tasks (io.modelcontextprotocol/tasks) gets the call as a task once a browser renders the page
  // (seconds); a page that is not rendered is answered directly.
  taskSupport: 'optional',
  deferTask: true,
  async handler(args, ctx): Promise<ToolResult> {
    const s = ctx.services.settings;
    const url = checkUrl(args.url);
    const format = args.format ?? 'markdown';
    const timeoutMs = s.get('READDOCS_TIMEOUT_MS');
    const ua = s.get('USER_AGENT_READDOCS');
    const started = Date.now();
    // The browser starts while the page is fetched, if it is likely to be needed (browser.ts prepare).
    ctx.services.browser()?.prepare?.(ua || undefined);
    const fetched = await fetchUrl(url.href, { timeoutMs, maxBytes: s.get('READDOCS_MAX_BYTES'), userAgent: ua, signal: ctx.signal, tool: 'ReadDocs' });
    const type = fetched.contentType.split(';')[0]!.trim();
    const base = { url: url.href, final_url: fetched.finalUrl, content_type: type || 'unknown' };

    if (type.startsWith('image/')) {
      const img = await prepareImage(fetched.body, fetched.finalUrl, { maxEdge: s.get('IMAGE_MAX_EDGE'), maxBytes: s.get('IMAGE_MAX_BYTES') });
      return {
        content: [{ type: 'text', text: describeImage(fetched.finalUrl, img) }, { type: 'image', data: img.data.toString('base64'), mimeType: img.mimeType }],
        structuredContent: { ...base, title: '', format: 'image', rendered_with: 'http', extracted_from: null, render: null, charset: '', total_chars: 0, next_offset: null },
      };
    }

    const reading = await readBody(fetched, type, args, ctx, started + timeoutMs);
    const { title, body, notes } = reading;
    if (reading.finalUrl) base.final_url = reading.finalUrl;
    const cut = page(body, args.offset ?? 0, s.get('READDOCS_MAX_CHARS'));
    const header = format === 'markdown' ? [`# ${title || base.final_url}`, `URL: ${base.final_url}`, ''] : [`URL: ${base.final_url}`, ''];
    const parts = [...header, cut.text];
    if (cut.note) parts.push('', cut.note);
    for (const n of notes) parts.push(`[Note: ${n}]`);
    return {
      content: [{ type: 'text', text: parts.join('\n') }],
      structuredContent: { ...base, title, format, rendered_with: reading.renderedWith, extracted_from: reading.extractedFrom, render: reading.render, charset: reading.charset, total_chars: body.length, next_offset: cut.next ?? null },
    };
  },
});

type Fetched = Awaited<ReturnType<typeof fetchUrl>>;
type ReadDocsArgs = { format?: (typeof FORMATS)[number]; wait_ms?: number; links?: (typeof LINK_STYLES)[number] };

/** A page's text as ReadDocs shows it, and how it was got. */
interface Reading {
  title: string;
  body: string;
  renderedWith: string;
  extractedFrom: 'rendered' | 'fetched' | null;
  /** For HTML: whether the browser ran and why (render-report.ts); null for other types. */
  render: RenderReport | null;
  charset: string;
  notes: string[];
  /** Where the page ended up, for HTML (a browser may have followed a redirect of its own). */
  finalUrl?: string;
}

/** The body by its type: a PDF's text, an HTML page read (rendered where the browser can change the answer), text as is; anything else is refused. */
async function readBody(fetched: Fetched, type: string, args: ReadDocsArgs, ctx: ToolContext, deadline: number): Promise<Reading> {
  if (type === 'application/pdf' || fetched.body.subarray(0, 5).toString('latin1') === '%PDF-') return readPdf(fetched);
  if (type === 'text/html' || type === 'application/xhtml+xml' || (type === '' && /<html[\s>]/i.test(fetched.body.subarray(0, 2048).toString()))) return readHtml(fetched, type, args, ctx, deadline);
  if (type.startsWith('text/') || type.includes('json') || type.includes('xml') || type.includes('javascript') || type === '') return readText(fetched, type);
  throw new UserError(`ReadDocs: ${fetched.finalUrl} is ${type} (${formatBytes(fetched.body.length)}), which ReadDocs cannot show. Download it with Bash (curl -o) instead.`, 'UNSUPPORTED');
}

async function readPdf(fetched: Fetched): Promise<Reading> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  try {
    const pdf = await getDocumentProxy(new Uint8Array(fetched.body));
    const r = await extractText(pdf, { mergePages: true });
    return { title: '', body: String(r.text).trim(), renderedWith: 'http', extractedFrom: null, render: null, charset: '', notes: [`PDF, ${r.totalPages} page(s), ${formatBytes(fetched.body.length)}`] };
  } catch (err) {
    throw new UserError(`ReadDocs: ${fetched.finalUrl} is a PDF that could not be read: ${(err as Error).message}`, 'UNSUPPORTED');
  }
}

/** `deadline`: one budget for the whole call, so what fetching and extraction used is not given to the browser again. */
async function readHtml(fetched: Fetched, type: string, args: ReadDocsArgs, ctx: ToolContext, deadline: number): Promise<Reading> {
  const s = ctx.services.settings;
  const format = args.format ?? 'markdown';
  const decoded = await decodeHtml(fetched.body, fetched.contentType);
  const { readHtmlPage } = await import('./page-reading.js');
  const reading = await readHtmlPage(decoded.text, fetched.finalUrl, {
    renderer: ctx.services.browser(),
    deadline,
    waitMs: Math.min(args.wait_ms ?? 0, s.get('READDOCS_WAIT_MAX_MS')),
    asked: (args.wait_ms ?? 0) > 0 ? 'wait_ms' : s.get('READDOCS_RENDER') === 'always' ? 'setting' : undefined,
    userAgent: s.get('USER_AGENT_READDOCS') || undefined,
    signal: ctx.signal,
    links: args.links ?? 'references',
    mediaType: type || 'text/html',
    onRender: async () => ctx.startTask(),
  });
  const shown =
    format === 'html'
      ? { body: reading.html, title: /<title[^>]*>([^<]*)<\/title>/i.exec(reading.html)?.[1]?.trim() ?? '' }
      : { title: reading.extracted.title, body: format === 'markdown' ? reading.extracted.markdown : reading.extracted.text };
  const charset = reading.from === 'fetched' ? `${decoded.encoding} (${decoded.source})` : '';
  return { ...shown, renderedWith: reading.renderedWith, extractedFrom: reading.from, render: reading.render, charset, notes: [reading.render.note], finalUrl: reading.finalUrl };
}

/** Text, JSON (pretty-printed when it parses), XML and scripts: shown as decoded. */
function readText(fetched: Fetched, type: string): Reading {
  const decoded = decodeText(fetched.body, fetched.contentType);
  let body = decoded.text;
  if (type.includes('json')) {
    try {
      body = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // Not valid JSON after all: as is.
    }
  }
  return { title: '', body, renderedWith: 'http', extractedFrom: null, render: null, charset: `${decoded.encoding} (${decoded.source})`, notes: [] };
}
