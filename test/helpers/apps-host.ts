import http from 'node:http';
import path from 'node:path';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { getToolUiResourceUri, isToolVisibilityModelOnly, RESOURCE_MIME_TYPE, type McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge';
import { ROOT } from './env.js';
import { watchProblems } from './browser.js';
import type { MountOptions } from './apps-host-page.js';

/**
 * A test MCP Apps host, as a chat app renders Pincer's views: a host page (one origin) that puts each
 * view in a sandbox proxy (another origin) whose CSP is built from the view's declared `_meta.ui.csp`,
 * and ext-apps' AppBridge between them. The view's tool calls and resource reads go through the bridge
 * to a real MCP client of the hub in this process — only to tools whose visibility includes "app", as a
 * host must — and every request the page makes is recorded, so a test can show that none left the
 * iframe except through the bridge.
 */

/** What the host needs of its MCP client: the SDK's Client over any transport. */
export interface HostClient {
  listTools(): Promise<{ tools: Tool[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: ({ uri: string; mimeType?: string; text?: string; _meta?: Record<string, unknown> } | { uri: string; blob: string })[] }>;
}

export interface ShownView {
  id: string;
  /** The view's own document (inside the sandbox proxy). */
  frame: Frame;
  /** The model's tool call the view shows, as the host's client got it. */
  result: Promise<CallToolResult>;
}

export interface AppsHost {
  page: Page;
  /** Every URL the page or its frames requested. */
  requests: string[];
  /** Console errors, page errors and CSP violations. */
  problems: string[];
  /** The tool calls views made through the host (name and arguments). */
  appCalls: { name: string; arguments: Record<string, unknown> }[];
  /** Origins the host itself serves: the only ones a request may go to. */
  origins: string[];
  show(tool: string, args: Record<string, unknown>, opts?: { theme?: 'light' | 'dark' }): Promise<ShownView>;
  theme(view: ShownView, theme: 'light' | 'dark'): Promise<void>;
  opened(): Promise<string[]>;
  close(): Promise<void>;
}

/** The sandbox's CSP: nothing but inline script and style unless the view declared origins (MCP Apps' default, stricter for connect-src). */
function cspOf(csp: McpUiResourceCsp | undefined): string {
  const list = (v: string[] | undefined, none = "'none'") => (v && v.length ? v.join(' ') : none);
  const res = csp?.resourceDomains?.join(' ') ?? '';
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`.trim(),
    `style-src 'self' 'unsafe-inline' ${res}`.trim(),
    `img-src 'self' data: ${res}`.trim(),
    `font-src 'self' data: ${res}`.trim(),
    `media-src 'self' data: ${res}`.trim(),
    `connect-src ${list(csp?.connectDomains)}`,
    `frame-src ${list(csp?.frameDomains)}`,
    "object-src 'none'",
    `base-uri ${list(csp?.baseUriDomains)}`,
  ].join('; ');
}

/** The sandbox proxy: loads the view into an inner frame and relays messages both ways, checking origins. */
function sandboxPage(hostOrigin: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox</title><style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%;display:block}</style></head><body><script>
const HOST = ${JSON.stringify(hostOrigin)};
const inner = document.createElement('iframe');
inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
inner.title = 'Pincer view';
document.body.appendChild(inner);
window.addEventListener('message', (e) => {
  if (e.source === window.parent) {
    if (e.origin !== HOST) return;
    if (e.data && e.data.method === 'ui/notifications/sandbox-resource-ready') {
      const doc = inner.contentDocument;
      doc.open(); doc.write(e.data.params.html); doc.close();
    } else inner.contentWindow.postMessage(e.data, '*');
  } else if (e.source === inner.contentWindow) {
    window.parent.postMessage(e.data, HOST);
  }
});
window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, HOST);
</script></body></html>`;
}

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; origin: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let hostScript: Promise<string> | undefined;

/** The host page's script: apps-host-page, bundled for the browser with ext-apps' AppBridge. */
function bundleHostScript(): Promise<string> {
  hostScript ??= build({
    entryPoints: [path.join(ROOT, 'dist', 'test', 'helpers', 'apps-host-page.js')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'error',
  }).then((r) => r.outputFiles[0]!.text);
  return hostScript;
}

export async function startAppsHost(browser: Browser, client: HostClient): Promise<AppsHost> {
  const script = await bundleHostScript();
  let hostOrigin = '';
  const sandbox = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/sandbox.html') return void res.writeHead(404).end();
    const csp = url.searchParams.get('csp');
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': cspOf(csp ? (JSON.parse(csp) as McpUiResourceCsp) : undefined), 'Cache-Control': 'no-store' });
    res.end(sandboxPage(hostOrigin));
  });
  const host = await listen((req, res) => {
    if (req.url === '/favicon.ico') return void res.writeHead(204).end();
    if (req.url === '/host.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    if (req.url === '/') return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test chat host</title><style>body{margin:16px;font:14px system-ui}iframe.view{display:block;width:560px;border:1px solid #ccc;border-radius:8px;margin:0 0 16px}</style></head><body><main id="views"></main><script type="module" src="/host.js"></script></body></html>');
    res.writeHead(404).end();
  });
  hostOrigin = host.origin;
  const { tools } = await client.listTools();
  const page = await browser.newPage({ viewport: { width: 640, height: 900 } });
  const { problems } = watchProblems(page);
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  const appCalls: AppsHost['appCalls'] = [];
  await page.exposeFunction('pincerHostCall', async (method: string, params: { name?: string; arguments?: Record<string, unknown>; uri?: string }) => {
    if (method === 'resources/read') return client.readResource({ uri: String(params.uri) });
    const tool = tools.find((t) => t.name === params.name);
    // A host runs for a view only the tools listed to it whose visibility includes "app".
    if (!tool || isToolVisibilityModelOnly(tool)) throw new Error(`The host refuses ${String(params.name)}: not a tool a view may call.`);
    appCalls.push({ name: tool.name, arguments: params.arguments ?? {} });
    return client.callTool({ name: tool.name, arguments: params.arguments ?? {} });
  });
  await page.goto(`${host.origin}/`);
  await page.waitForFunction(() => 'pincerTestHost' in window);
  let n = 0;
  const show: AppsHost['show'] = async (name, args, opts = {}) => {
    const tool = tools.find((t) => t.name === name);
    assert.ok(tool, `${name} is listed to the host`);
    const uri = getToolUiResourceUri(tool);
    assert.ok(uri, `${name} names its view in _meta.ui.resourceUri`);
    const read = await client.readResource({ uri });
    const content = read.contents[0];
    assert.ok(content && 'text' in content && content.text, `${uri} has the page as text`);
    assert.equal(content.mimeType, RESOURCE_MIME_TYPE);
    const ui = content._meta?.ui as { csp?: McpUiResourceCsp } | undefined;
    const id = `view-${++n}`;
    // As a chat app does: the model's call starts, and its view is rendered beside it meanwhile.
    const result = client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    const mount: MountOptions = { tool, html: content.text, csp: ui?.csp, input: args, theme: opts.theme ?? 'light', sandboxUrl: `${sandbox.origin}/sandbox.html?csp=${encodeURIComponent(JSON.stringify(ui?.csp ?? {}))}` };
    // As JSON: what crosses into the page is data, and Playwright's argument types stay shallow.
    await page.evaluate((json) => {
      const [i, m] = JSON.parse(json) as [string, MountOptions];
      return window.pincerTestHost.mount(i, m);
    }, JSON.stringify([id, mount]));
    void result.then(
      (r) =>
        page.evaluate((json) => {
          const [i, rr] = JSON.parse(json) as [string, CallToolResult];
          return window.pincerTestHost.result(i, rr);
        }, JSON.stringify([id, r])),
      (err: unknown) => page.evaluate(([i, reason]) => window.pincerTestHost.cancelled(i, reason), [id, String(err)] as const),
    )
      // The page closed before a late answer came (the test is over): nothing is left to tell.
      .catch(() => undefined);
    const outer = await page.locator(`#${id}`).elementHandle();
    const proxy = await outer!.contentFrame();
    const frame = proxy!.childFrames()[0];
    assert.ok(frame, 'the sandbox proxy holds the view');
    await frame.locator('article.view').waitFor();
    return { id, frame, result };
  };
  return {
    page,
    requests,
    problems,
    appCalls,
    origins: [host.origin, sandbox.origin],
    show,
    theme: (view, theme) => page.evaluate(([i, t]) => window.pincerTestHost.theme(i, t), [view.id, theme] as const),
    opened: () => page.evaluate(() => [...window.pincerTestHost.opened]),
    close: async () => {
      await page.close();
      host.server.closeAllConnections();
      sandbox.server.closeAllConnections();
      await Promise.all([new Promise((r) => host.server.close(r)), new Promise((r) => sandbox.server.close(r))]);
    },
  };
}
