import { bashTool } from './bash.js';
import { backgroundBashTool, readBgOutputTool, listBgTasksTool, killBgTaskTool } from './background.js';
import type { AnyTool } from '../types.js';

export const shellTools: AnyTool[] = [bashTool, backgroundBashTool, readBgOutputTool, listBgTasksTool, killBgTaskTool];
