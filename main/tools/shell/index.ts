import { bashTool } from './bash.js';
import { backgroundBashTool, readBgOutputTool, listBgTasksTool, killBgTaskTool } from './background.js';
import type { AnyTool } from '../types.js';

export const shellTools = [bashTool, backgroundBashTool, readBgOutputTool, listBgTasksTool, killBgTaskTool] as unknown as AnyTool[];
