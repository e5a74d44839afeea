import type { AnyTool } from '../types.js';
import { taskManagerTool } from './task-manager.js';
import { planModeTool } from './plan-mode.js';
import { invokeSkillTool } from './invoke-skill.js';
import { setCallbackTool } from './set-callback.js';

export const workflowTools: AnyTool[] = [taskManagerTool, planModeTool, invokeSkillTool, setCallbackTool];
