import { MIMEType } from 'node:util';

// encoding-sniffer (and @exodus/bytes under it) costs an idle hub ~8 MB of RSS; it loads with the first page decoded.
let sniffer: Promise<typeof import('encoding-sniffer')> | undefined;
const loadSniffer = () => (sniffer ??= import('encoding-sniffer'));

/** The `charset=` of a Content-Type header, if any (a header that is not a MIME type has none). */
export function headerCharset(contentType: string): string | undefined {
  try {
    return new MIMEType(contentType).params.get('charset') ?? undefined;
  } catch {
    // Not a MIME type / not a label the Encoding Standard knows: no charset from it.
    return undefined;
  }
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    // Invalid UTF-8 is the answer to the question.
    return false;
  }
}

/** The WHATWG name of an encoding label ("ISO-8859-1" → "windows-1252", "UTF8" → "utf-8"). */
function canonical(label: string): string {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    // A label TextDecoder does not know keeps its own (lower-cased) name.
    return label.toLowerCase();
  }
}

function decodeAs(bytes: Uint8Array, label: string): string {
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    // A label this runtime's ICU lacks (e.g. x-user-defined): UTF-8 with replacement characters beats failing.
    return new TextDecoder('utf-8').decode(bytes);
  }
}

export interface Decoded {
  text: string;
  /** The encoding used, and where it came from. */
  encoding: string;
  source: 'bom' | 'header' | 'meta' | 'sniffed';
}

/**
 * Decodes an HTML page the way browsers do: a byte-order mark, then the HTTP
 * header's charset, then a `<meta>` charset in the first 1024 bytes (the
 * WHATWG prescan, by encoding-sniffer); with none of those, UTF-8 when the
 * bytes are valid UTF-8, else windows-1252 (what browsers fall back to).
 */
export async function decodeHtml(body: Buffer, contentType: string): Promise<Decoded> {
  const { getEncoding } = await loadSniffer();
  const header = knownLabel(headerCharset(contentType));
  if (hasBom(body) || header) {
    const enc = getEncoding(body, { transportLayerEncodingLabel: header, defaultEncoding: 'utf-8' });
    return { text: decodeAs(body, enc), encoding: canonical(enc), source: hasBom(body) ? 'bom' : 'header' };
  }
  // The prescan found a <meta> charset exactly when the answer does not depend on the default.
  const withUtf8 = getEncoding(body, { defaultEncoding: 'utf-8' });
  if (withUtf8 === getEncoding(body, { defaultEncoding: 'windows-1252' })) return { text: decodeAs(body, withUtf8), encoding: canonical(withUtf8), source: 'meta' };
  const sniffed = isUtf8(body) ? 'utf-8' : 'windows-1252';
  return { text: decodeAs(body, sniffed), encoding: sniffed, source: 'sniffed' };
}

/** Plain text, JSON, XML: BOM, then the header's charset, then UTF-8 if valid, else windows-1252. */
export function decodeText(body: Buffer, contentType: string): Decoded {
  if (hasBom(body)) {
    const enc = body[0] === 0xef ? 'utf-8' : body[0] === 0xfe ? 'utf-16be' : 'utf-16le';
    return { text: decodeAs(body, enc), encoding: enc, source: 'bom' };
  }
  const header = knownLabel(headerCharset(contentType));
  if (header) return { text: decodeAs(body, header), encoding: canonical(header), source: 'header' };
  const sniffed = isUtf8(body) ? 'utf-8' : 'windows-1252';
  return { text: decodeAs(body, sniffed), encoding: sniffed, source: 'sniffed' };
}

/** A charset label the WHATWG Encoding Standard knows (and so TextDecoder accepts), else undefined. */
function knownLabel(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    // Not a MIME type / not a label the Encoding Standard knows: no charset from it.
    return undefined;
  }
}

function hasBom(b: Buffer): boolean {
  return (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) || (b[0] === 0xfe && b[1] === 0xff) || (b[0] === 0xff && b[1] === 0xfe);
}
