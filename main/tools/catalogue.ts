import type { AnyTool } from './types.js';
import { shellTools } from './shell/index.js';
import { workflowTools } from './workflow/index.js';
import { interactionTools } from './interaction/index.js';
import { mediaTools } from './media/index.js';
import { webTools } from './web/index.js';
import { searchTools } from './search/index.js';
import { viewTools } from './views/index.js';

/** Every tool Pincer serves, in catalogue order; last, those only the chat views call (listed to clients of MCP Apps alone). */
export function allTools(): AnyTool[] {
  return [...shellTools, ...mediaTools, ...webTools, ...searchTools, ...workflowTools, ...interactionTools, ...viewTools];
}
