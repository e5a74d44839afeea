import { jobViewReadTool, jobViewKillTool } from './job-view.js';
import { questionViewReadTool, questionViewAnswerTool } from './question-view.js';
import { taskViewReadTool, taskViewCompleteTool } from './todo-view.js';
import type { AnyTool } from '../types.js';

/** The tools only the chat views call (MCP Apps, visibility ["app"]). */
export const viewTools: AnyTool[] = [jobViewReadTool, jobViewKillTool, questionViewReadTool, questionViewAnswerTool, taskViewReadTool, taskViewCompleteTool];
