// Renders the app and tray icons from SVG (run: node build/make-icons.mjs). The PNGs are committed.
import sharp from 'sharp';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const claw = (stroke) => `<path d="M18 44c0-10 6-18 14-18s14 8 14 18" fill="none" stroke="${stroke}" stroke-width="6" stroke-linecap="round"/><path d="M22 22l-6-8M42 22l6-8" stroke="${stroke}" stroke-width="6" stroke-linecap="round"/><circle cx="32" cy="40" r="4.5" fill="${stroke}"/>`;
const app = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#d9482b"/>${claw('#fff')}</svg>`;
const tray = {
  serving: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="2" y="2" width="60" height="60" rx="14" fill="#d9482b"/>${claw('#fff')}</svg>`,
  paused: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="2" y="2" width="60" height="60" rx="14" fill="#8a8a8f"/>${claw('#fff')}</svg>`,
  error: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="2" y="2" width="60" height="60" rx="14" fill="#b3261e"/><path d="M32 14v24" stroke="#fff" stroke-width="8" stroke-linecap="round"/><circle cx="32" cy="50" r="5" fill="#fff"/></svg>`,
  question: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="2" y="2" width="60" height="60" rx="14" fill="#d9482b"/>${claw('#fff')}<circle cx="52" cy="12" r="11" fill="#2f6fde" stroke="#fff" stroke-width="3"/></svg>`,
};
fs.mkdirSync(path.join(here, 'tray'), { recursive: true });
fs.writeFileSync(path.join(here, 'icon.svg'), app);
await sharp(Buffer.from(app), { density: 600 }).resize(512, 512).png().toFile(path.join(here, 'icon.png'));
for (const [state, svg] of Object.entries(tray)) {
  await sharp(Buffer.from(svg), { density: 300 }).resize(16, 16).png().toFile(path.join(here, 'tray', `${state}.png`));
  await sharp(Buffer.from(svg), { density: 300 }).resize(32, 32).png().toFile(path.join(here, 'tray', `${state}@2x.png`));
}
