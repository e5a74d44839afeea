/**
 * The browser side of the test's MCP Apps host (see apps-host.ts): ext-apps' own AppBridge and
 * PostMessageTransport, each view in a sandbox proxy iframe of another origin, as the extension's
 * specification asks of a web host. Bundled for the browser by the test (esbuild); the MCP client it
 * forwards to lives in the test process (`pincerHostCall`, exposed by Playwright).
 */
import { AppBridge, PostMessageTransport, type McpUiHostContext, type McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';

declare global {
  interface Window {
    /** The test process: forwards the view's requests to its real MCP client of the hub. */
    pincerHostCall(method: 'tools/call' | 'resources/read', params: unknown): Promise<never>;
    pincerTestHost: TestHost;
  }
}

export interface MountOptions {
  tool: Tool;
  html: string;
  csp: McpUiResourceCsp | undefined;
  input: Record<string, unknown>;
  theme: 'light' | 'dark';
  sandboxUrl: string;
}

export interface TestHost {
  mount(id: string, opts: MountOptions): Promise<void>;
  result(id: string, result: CallToolResult): Promise<void>;
  cancelled(id: string, reason: string): Promise<void>;
  theme(id: string, theme: 'light' | 'dark'): Promise<void>;
  opened: string[];
  teardown(id: string): Promise<void>;
}

const bridges = new Map<string, AppBridge>();
const opened: string[] = [];

async function mount(id: string, opts: MountOptions): Promise<void> {
  const frame = document.createElement('iframe');
  frame.id = id;
  frame.title = `${opts.tool.name} view`;
  frame.className = 'view';
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  const context: McpUiHostContext = {
    theme: opts.theme,
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    containerDimensions: { width: 560, maxHeight: 720 },
    platform: 'web',
    locale: 'en-US',
    toolInfo: { tool: opts.tool },
  };
  const bridge = new AppBridge(null, { name: 'pincer-test-host', version: '1.0.0' }, { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} }, { hostContext: context });
  bridge.oncalltool = (params) => window.pincerHostCall('tools/call', params);
  bridge.onreadresource = (params) => window.pincerHostCall('resources/read', params);
  bridge.onopenlink = async ({ url }) => {
    opened.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
  };
  const sandboxReady = new Promise<void>((resolve) => (bridge.onsandboxready = () => resolve()));
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  document.getElementById('views')!.append(frame);
  // The newest view is in sight, as in a chat (Chromium runs no animation frame in a frame out of sight).
  frame.scrollIntoView();
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.src = opts.sandboxUrl;
  await sandboxReady;
  await bridge.sendSandboxResourceReady({ html: opts.html, ...(opts.csp ? { csp: opts.csp } : {}) });
  await initialized;
  await bridge.sendToolInput({ arguments: opts.input });
  bridges.set(id, bridge);
}

window.pincerTestHost = {
  mount,
  result: (id, result) => bridges.get(id)!.sendToolResult(result),
  cancelled: (id, reason) => bridges.get(id)!.sendToolCancelled({ reason }),
  theme: async (id, theme) => {
    await bridges.get(id)!.sendHostContextChange({ theme });
  },
  opened,
  teardown: async (id) => {
    await bridges.get(id)!.teardownResource({});
  },
};
