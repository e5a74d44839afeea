import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../types.js';
import { UserError } from '../../core/errors.js';
import { formatBytes } from '../../core/format.js';
import { prepareImage, describeImage } from './image.js';

export const readImageTool = defineTool({
  name: 'ReadImage',
  title: 'Look at an image file',
  group: 'filesystem',
  description:
    'Read an image file and return it as an image you can see, with its format and size. PNG, JPEG, GIF (first frame), WebP, BMP, ' +
    'TIFF, AVIF and SVG are detected from the bytes; large images are scaled down to what clients accept. file_path must be absolute.',
  inputSchema: z.object({ file_path: z.string().describe('The absolute path to the image file') }),
  // No outputSchema on purpose: clients that prefer structuredContent (Mastra, the AI SDK with
  // declared schemas, LangChain's artifacts) hand the model that object and drop the content
  // blocks — the image with them. Without structured output every client passes the image on;
  // format, sizes and notes are in the text block beside it.
  annotations: { title: 'Look at an image file', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const file = args.file_path.trim();
    if (!file) throw new UserError('ReadImage: file_path is empty; pass the absolute path of an image.', 'INVALID_INPUT');
    if (!path.isAbsolute(file)) throw new UserError(`ReadImage: ${file} is a relative path; pass an absolute path such as /home/me/picture.png.`, 'INVALID_INPUT');
    let st: fs.Stats;
    try {
      st = await fs.promises.stat(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new UserError(`ReadImage: ${file} does not exist.`, 'NOT_FOUND');
      if (code === 'EACCES' || code === 'EPERM') throw new UserError(`ReadImage: ${file} cannot be read (permission denied).`, 'DENIED');
      throw new UserError(`ReadImage: ${file} cannot be read: ${(err as Error).message}`, 'UNAVAILABLE');
    }
    if (st.isDirectory()) throw new UserError(`ReadImage: ${file} is a directory, not an image file.`, 'UNSUPPORTED');
    if (!st.isFile()) throw new UserError(`ReadImage: ${file} is not a regular file.`, 'UNSUPPORTED');
    if (st.size === 0) throw new UserError(`ReadImage: ${file} is empty (0 bytes).`, 'INVALID_INPUT');
    const max = ctx.services.settings.get('IMAGE_MAX_FILE_BYTES');
    if (st.size > max) throw new UserError(`ReadImage: ${file} is ${formatBytes(st.size)}, more than IMAGE_MAX_FILE_BYTES (${formatBytes(max)}).`, 'TOO_LARGE');
    let buf: Buffer;
    try {
      buf = await fs.promises.readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const denied = code === 'EACCES' || code === 'EPERM';
      throw new UserError(`ReadImage: ${file} cannot be read${denied ? ' (permission denied)' : `: ${(err as Error).message}`}.`, denied ? 'DENIED' : 'UNAVAILABLE');
    }
    const s = ctx.services.settings;
    const img = await prepareImage(buf, file, { maxEdge: s.get('IMAGE_MAX_EDGE'), maxBytes: s.get('IMAGE_MAX_BYTES') });
    return {
      content: [
        { type: 'text', text: describeImage(file, img) },
        { type: 'image', data: img.data.toString('base64'), mimeType: img.mimeType },
      ],
    };
  },
});
