import type { AnyTool } from '../types.js';
import { webSearchTool } from './web-search.js';

export const searchTools: AnyTool[] = [webSearchTool];
