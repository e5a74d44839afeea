import type { AnyTool } from '../types.js';
import { readImageTool } from './read-image.js';

export const mediaTools: AnyTool[] = [readImageTool];
