import type { AnyTool } from '../types.js';
import { readDocsTool } from './read-docs.js';
import { webSearchTool } from '../search/web-search.js';
import { readImageTool } from '../media/read-image.js';

export const mediaTools: AnyTool[] = [readImageTool];
export const webTools: AnyTool[] = [readDocsTool];
export const searchTools: AnyTool[] = [webSearchTool];
