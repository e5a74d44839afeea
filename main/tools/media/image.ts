import type { Sharp, Metadata, OutputInfo } from 'sharp';
import { UserError } from '../../core/errors.js';
import { formatBytes } from '../../core/format.js';

export interface ImageLimits {
  maxEdge: number;
  maxBytes: number;
}

export interface PreparedImage {
  data: Buffer;
  mimeType: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';
  format: string;
  original: { width: number; height: number; bytes: number };
  sent: { width: number; height: number; bytes: number };
  notes: string[];
}

/** Names a format from its first bytes (the name of a file proves nothing). */
export function sniffFormat(buf: Buffer): string | undefined {
  const head = buf.subarray(0, 32);
  const ascii = head.toString('latin1');
  if (head[0] === 0x89 && ascii.slice(1, 4) === 'PNG') return 'png';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return 'gif';
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return 'webp';
  if (ascii.startsWith('BM')) return 'bmp';
  if (ascii.startsWith('II*\u0000') || ascii.startsWith('MM\u0000*')) return 'tiff';
  if (ascii.slice(4, 8) === 'ftyp') {
    const brand = ascii.slice(8, 12);
    if (brand === 'avif' || brand === 'avis') return 'avif';
    if (['heic', 'heix', 'hevc', 'hevx', 'mif1', 'msf1'].includes(brand)) return 'heic';
  }
  const text = buf.subarray(0, 4096).toString('utf8').trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(text)) return 'svg';
  return undefined;
}

const KEEP: Record<string, PreparedImage['mimeType']> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * Decodes any supported image, takes the first frame of an animation, applies
 * EXIF rotation, and scales and recompresses it until it fits the limits
 * clients accept — keeping the aspect ratio.
 */
export async function prepareImage(buf: Buffer, name: string, limits: ImageLimits): Promise<PreparedImage> {
  // Loaded on first use: a client waiting for the server to start should not wait for libvips.
  const { default: sharp } = await import('sharp');
  const { decode: decodeBmp } = await import('bmp-ts');
  const format = sniffFormat(buf);
  if (!format) {
    throw new UserError(`ReadImage: ${name} is not an image Pincer can read (PNG, JPEG, GIF, WebP, BMP, TIFF, AVIF, SVG). Its first bytes do not match any image format.`, 'UNSUPPORTED');
  }
  let input: Sharp;
  try {
    if (format === 'bmp') {
      const bmp = decodeBmp(buf, { toRGBA: true });
      input = sharp(bmp.data, { raw: { width: bmp.width, height: bmp.height, channels: 4 } });
    } else {
      input = sharp(buf, { failOn: 'truncated', animated: false, limitInputPixels: 268_402_689, density: format === 'svg' ? 144 : undefined });
    }
  } catch (err) {
    throw new UserError(`ReadImage: ${name} looks like ${format.toUpperCase()} but could not be decoded: ${(err as Error).message}. The file may be truncated or corrupt.`, 'UNSUPPORTED');
  }
  let meta: Metadata;
  try {
    meta = await input.metadata();
  } catch (err) {
    if (format === 'heic') throw new UserError(`ReadImage: ${name} is HEIC, which this build cannot decode (patent-encumbered HEVC). Convert it to JPEG first.`, 'UNSUPPORTED');
    throw new UserError(`ReadImage: ${name} looks like ${format.toUpperCase()} but could not be read: ${(err as Error).message}. The file may be truncated or corrupt.`, 'UNSUPPORTED');
  }
  const notes: string[] = [];
  if ((meta.pages ?? 1) > 1 && (format === 'gif' || format === 'webp')) notes.push(`animated (${meta.pages} frames): showing the first frame`);
  const rotated = (meta.orientation ?? 1) >= 5;
  const width = (rotated ? meta.height : meta.width) ?? 0;
  const height = (rotated ? meta.width : meta.height) ?? 0;
  if (!width || !height) throw new UserError(`ReadImage: ${name} has no readable dimensions; it may be corrupt.`, 'UNSUPPORTED');
  const original = { width, height, bytes: buf.length };

  const animated = notes.length > 0;
  const keepAsIs = KEEP[format] && !animated && Math.max(width, height) <= limits.maxEdge && buf.length <= limits.maxBytes && (meta.orientation ?? 1) === 1;
  if (keepAsIs) {
    // Decode once anyway: a truncated file must be an error here, not a broken picture in the client.
    try {
      await input.clone().raw().toBuffer();
    } catch (err) {
      throw new UserError(`ReadImage: ${name} (${format.toUpperCase()}) could not be decoded: ${(err as Error).message.split('\n')[0]}. The file is probably truncated or corrupt.`, 'UNSUPPORTED');
    }
    return { data: buf, mimeType: KEEP[format]!, format, original, sent: { width, height, bytes: buf.length }, notes };
  }

  let edge = Math.min(limits.maxEdge, Math.max(width, height));
  const photo = format === 'jpeg' || (!meta.hasAlpha && ['heic', 'avif', 'tiff', 'webp'].includes(format));
  for (let attempt = 0; attempt < 8; attempt++) {
    const quality = Math.max(50, 85 - attempt * 8);
    const pipeline = input.clone().rotate().resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true });
    let out: { data: Buffer; info: OutputInfo };
    let mimeType: PreparedImage['mimeType'];
    try {
      if (photo || attempt > 0) {
        // Past the first try, JPEG is what fits; transparency is flattened onto white.
        out = await pipeline.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true }).toBuffer({ resolveWithObject: true });
        mimeType = 'image/jpeg';
      } else {
        out = await pipeline.png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer({ resolveWithObject: true });
        mimeType = 'image/png';
      }
    } catch (err) {
      throw new UserError(`ReadImage: ${name} (${format.toUpperCase()}) could not be decoded: ${(err as Error).message.split('\n')[0]}. The file is probably truncated or corrupt.`, 'UNSUPPORTED');
    }
    if (out.data.length <= limits.maxBytes) {
      if (out.info.width < width || out.info.height < height) notes.push(`scaled down to fit ${limits.maxEdge} px`);
      return { data: out.data, mimeType, format, original, sent: { width: out.info.width, height: out.info.height, bytes: out.data.length }, notes };
    }
    if (attempt > 0) edge = Math.max(64, Math.floor(edge * 0.8));
  }
  throw new UserError(`ReadImage: ${name} could not be made smaller than ${formatBytes(limits.maxBytes)}; raise IMAGE_MAX_BYTES.`, 'TOO_LARGE');
}

export function describeImage(name: string, img: PreparedImage): string {
  const o = img.original;
  const s = img.sent;
  const same = o.width === s.width && o.height === s.height && img.data.length === o.bytes;
  const sentFormat = img.mimeType.split('/')[1]!.toUpperCase();
  return `${name}: ${img.format.toUpperCase()} ${o.width}×${o.height}, ${formatBytes(o.bytes)}${same ? '' : ` → sent as ${sentFormat} ${s.width}×${s.height}, ${formatBytes(s.bytes)}`}${img.notes.length ? ` (${img.notes.join('; ')})` : ''}`;
}
