import type { AnyTool } from '../types.js';
import { readDocsTool } from './read-docs.js';
import { webSearchTool } from '../search/web-search.js';
import { readImageTool } from '../media/read-image.js';

export const mediaTools = [readImageTool] as unknown as AnyTool[];
export const webTools = [readDocsTool] as unknown as AnyTool[];
export const searchTools = [webSearchTool] as unknown as AnyTool[];
