import type { AnyTool } from '../types.js';
import { askUserQuestionTool } from './ask-user-question.js';

export const interactionTools: AnyTool[] = [askUserQuestionTool];
