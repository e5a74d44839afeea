import type { AnyTool } from './types.js';
import { shellTools } from './shell/index.js';
import { workflowTools } from './workflow/index.js';
import { interactionTools } from './interaction/index.js';
import { mediaTools } from './media/index.js';
import { webTools } from './web/index.js';
import { searchTools } from './search/index.js';

/** Every tool Pincer serves, in catalogue order. */
export function allTools(): AnyTool[] {
  return [...shellTools, ...mediaTools, ...webTools, ...searchTools, ...workflowTools, ...interactionTools];
}
