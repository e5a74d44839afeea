import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readLogWindow } from '../main/tools/shell/job-log.js';
import { tempHome } from './helpers/env.js';

/** The one job-log reader (ReadBgOutput and the dashboard): a window never cuts a character in half. */
test('a log window starting or ending inside a UTF-8 character shows whole characters only', () => {
  const h = tempHome();
  try {
    const file = path.join(h.home, '1.log');
    const text = 'añ€😀z'; // 1, 2, 3, 4 and 1 bytes
    fs.writeFileSync(file, text);
    const size = Buffer.byteLength(text);
    // Every start and end: the decoded text is a run of whole characters of the log, and from/to say which bytes.
    for (let from = 0; from < size; from++) {
      for (let len = 1; from + len <= size; len++) {
        const w = readLogWindow(file, from, len);
        assert.ok(!w.text.includes('\uFFFD'), `no replacement character for [${from}, ${from + len})`);
        assert.equal(Buffer.byteLength(w.text), w.to - w.from);
        assert.equal(Buffer.from(text).subarray(w.from, w.to).toString('utf8'), w.text);
        assert.ok(w.from >= from && w.to <= from + len);
      }
    }
    assert.equal(readLogWindow(file, 3, 4).text, '€', 'a window from inside ñ starts at the next character');
    assert.equal(readLogWindow(file, 0, 8).text, 'añ€', 'a window ending inside 😀 stops before it');
    // A log that will not grow (the job ended) shows a broken end as it is, rather than hiding it forever.
    fs.writeFileSync(file, Buffer.from([0x61, 0xe2, 0x82]));
    assert.equal(readLogWindow(file, 0, 3, true).text, 'a\uFFFD');
  } finally {
    h.cleanup();
  }
});
