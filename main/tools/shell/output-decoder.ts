import { StringDecoder } from 'node:string_decoder';
import iconv from 'iconv-lite';

/** A streaming decoder of a shell's output: a character cut between two chunks is kept for the next. */
export interface OutputDecoder {
  write(chunk: Buffer): string;
  end(): string;
}

/**
 * UTF-8, or the Windows code page cmd.exe writes its output in (the console's OEM page: 437, 850,
 * 866 …, which Node's TextDecoder does not know; iconv-lite does). An unknown page is read as UTF-8.
 */
export function outputDecoder(codePage?: number): OutputDecoder {
  const name = codePage && codePage !== 65001 ? `cp${codePage}` : undefined;
  if (name && iconv.encodingExists(name)) {
    const d = iconv.getDecoder(name);
    return { write: (chunk) => d.write(chunk), end: () => d.end() ?? '' };
  }
  const d = new StringDecoder('utf8');
  return { write: (chunk) => d.write(chunk), end: () => d.end() };
}
