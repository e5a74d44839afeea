import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { encode as encodeBmp } from 'bmp-ts';
import type { Client } from '@modelcontextprotocol/client';
import { connectV2, textOf } from './helpers/clients.js';
import { tempHome } from './helpers/env.js';

type Img = { type: string; data?: string; mimeType?: string; text?: string };

describe('ReadImage', () => {
  const h = tempHome();
  let client: Client;
  const file = (name: string) => path.join(h.home, name);
  const read = (p: string) => client.callTool({ name: 'ReadImage', arguments: { file_path: p } });

  before(async () => {
    ({ client } = await connectV2({ home: h.home }));
  });
  after(async () => {
    await client.close();
    h.cleanup();
  });

  test('a 6000×4000 PNG comes back within the default limits with the right aspect ratio', async () => {
    // Noise, so the PNG cannot be compressed to nothing.
    const raw = Buffer.alloc(6000 * 4000 * 3);
    for (let i = 0; i < raw.length; i += 997) raw[i] = (i * 31) & 0xff;
    await sharp(raw, { raw: { width: 6000, height: 4000, channels: 3 } }).png({ compressionLevel: 1 }).toFile(file('big.png'));
    const r = await read(file('big.png'));
    assert.notEqual(r.isError, true, textOf(r));
    const img = (r.content as Img[]).find((c) => c.type === 'image')!;
    const bytes = Buffer.from(img.data!, 'base64');
    assert.ok(bytes.length <= 3_932_160, `sent ${bytes.length} bytes`);
    const meta = await sharp(bytes).metadata();
    assert.ok(Math.max(meta.width!, meta.height!) <= 1568);
    assert.equal(meta.width, 1568);
    assert.ok(Math.abs(meta.width! / meta.height! - 1.5) < 0.01, `aspect ${meta.width}/${meta.height}`);
    assert.equal(img.mimeType, `image/${meta.format}`);
    assert.match(textOf(r), /PNG 6000×4000, .* → sent as (PNG|JPEG) 1568×1045/);
    // No structuredContent: clients that prefer it would hand the model the metadata and drop the image.
    assert.equal(r.structuredContent, undefined);
  });

  test('types come from the bytes, not the name: JPEG named .png, WebP, GIF, BMP, TIFF, AVIF, SVG', async () => {
    const base = sharp({ create: { width: 40, height: 20, channels: 3, background: '#3366cc' } });
    fs.writeFileSync(file('jpeg-in-disguise.png'), await base.clone().jpeg().toBuffer());
    fs.writeFileSync(file('a.webp'), await base.clone().webp().toBuffer());
    fs.writeFileSync(file('a.tiff'), await base.clone().tiff().toBuffer());
    fs.writeFileSync(file('a.avif'), await base.clone().avif().toBuffer());
    fs.writeFileSync(file('a.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="red"/></svg>');
    const rgba = Buffer.alloc(40 * 20 * 4, 0xff);
    fs.writeFileSync(file('a.bmp'), encodeBmp({ data: rgba, width: 40, height: 20, bitPP: 24 } as Parameters<typeof encodeBmp>[0]).data);
    // Two frames: the first red, the second green.
    const frames = Buffer.concat([Buffer.alloc(10 * 10 * 4, 0), Buffer.alloc(10 * 10 * 4, 0)]);
    for (let i = 0; i < 100; i++) frames.writeUInt32BE(0xff0000ff, i * 4), frames.writeUInt32BE(0x00ff00ff, 400 + i * 4);
    await sharp(frames, { raw: { width: 10, height: 20, channels: 4, pageHeight: 10 } as { width: number; height: number; channels: 4; pageHeight: number } }).gif().toFile(file('anim2.gif'));

    const expect: [string, string, string][] = [
      ['jpeg-in-disguise.png', 'JPEG', 'image/jpeg'],
      ['a.webp', 'WEBP', 'image/webp'],
      ['a.tiff', 'TIFF', 'image/jpeg'],
      ['a.avif', 'AVIF', 'image/jpeg'],
      ['a.svg', 'SVG', 'image/png'],
      ['a.bmp', 'BMP', 'image/png'],
    ];
    for (const [name, format, mime] of expect) {
      const r = await read(file(name));
      assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
      assert.match(textOf(r), new RegExp(`: ${format} `), name);
      assert.equal((r.content as Img[]).find((c) => c.type === 'image')!.mimeType, mime, name);
    }
    const anim = await read(file('anim2.gif'));
    assert.match(textOf(anim), /GIF 10×10.*animated \(2 frames\): showing the first frame/);
    const first = Buffer.from((anim.content as Img[]).find((c) => c.type === 'image')!.data!, 'base64');
    const { data } = await sharp(first).raw().toBuffer({ resolveWithObject: true });
    assert.equal(data[0], 0xff, 'the first (red) frame');
    assert.equal(data[1], 0);
  });

  test('each bad input gets its own clear error naming the path', async () => {
    fs.mkdirSync(file('adir'));
    fs.writeFileSync(file('notes.txt'), 'just text, not an image\n');
    fs.writeFileSync(file('empty.png'), '');
    const png = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#fff' } }).png().toBuffer();
    fs.writeFileSync(file('truncated.png'), png.subarray(0, Math.floor(png.length / 2)));
    fs.writeFileSync(file('locked.png'), png);
    fs.chmodSync(file('locked.png'), 0o000);
    const cases: [string, RegExp][] = [
      ['relative/pic.png', /relative\/pic\.png is a relative path; pass an absolute path/],
      [file('missing.png'), /missing\.png does not exist/],
      [file('adir'), /adir is a directory, not an image file/],
      [file('notes.txt'), /notes\.txt is not an image Pincer can read/],
      [file('empty.png'), /empty\.png is empty \(0 bytes\)/],
      [file('truncated.png'), /truncated\.png .*(truncated or corrupt|could not be decoded)/],
    ];
    if (process.getuid?.() !== 0) cases.push([file('locked.png'), /locked\.png cannot be read \(permission denied\)/]);
    for (const [p, re] of cases) {
      const r = await read(p);
      assert.equal(r.isError, true, p);
      assert.match(textOf(r), re);
    }
  });
});
