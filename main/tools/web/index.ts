import type { AnyTool } from '../types.js';
import { readDocsTool } from './read-docs.js';

export const webTools: AnyTool[] = [readDocsTool];
