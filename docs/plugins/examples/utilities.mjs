// Four small utilities as a Pincer module plugin: system.info, time.now, util.uuid, util.hash.
// Copy this file to ~/.pincer/plugins/ (PINCER_HOME/plugins) and the tools appear in every client
// within a second; delete it and they go. See docs/PLUGINS.md.
import os from 'node:os';
import crypto from 'node:crypto';

const gb = (bytes) => `${(bytes / 1024 ** 3).toFixed(1)}GB`;

export default {
  tools: [
    {
      name: 'system.info',
      title: 'System information',
      description: 'Operating system, CPU, memory and uptime of the machine Pincer runs on.',
      inputSchema: { type: 'object', properties: { detail: { type: 'boolean', description: 'Also list every CPU and network interface (default false)' } } },
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler({ detail = false }) {
        const total = os.totalmem();
        const free = os.freemem();
        const seconds = Math.round(os.uptime());
        const info = {
          platform: process.platform,
          arch: process.arch,
          nodeVersion: process.version,
          hostname: os.hostname(),
          cpu: { cores: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown' },
          memory: { total: gb(total), free: gb(free), used: gb(total - free), usage: Math.round(((total - free) / total) * 100) },
          uptime: { seconds, hours: Math.floor(seconds / 3600), days: Math.floor(seconds / 86400) },
        };
        if (detail) Object.assign(info, { cpus: os.cpus().map((c) => c.model), networkInterfaces: Object.keys(os.networkInterfaces()) });
        return info;
      },
    },
    {
      name: 'time.now',
      title: 'Current time',
      description: 'The current time as ISO, locale text, a millisecond timestamp and Unix seconds, optionally in a time zone.',
      inputSchema: {
        type: 'object',
        properties: {
          format: { type: 'string', enum: ['iso', 'locale', 'timestamp', 'unix'], description: 'Which form "time" takes (default locale)' },
          timezone: { type: 'string', description: 'An IANA time zone such as Asia/Shanghai (default: the machine’s)' },
        },
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler({ format = 'locale', timezone }) {
        const now = new Date();
        const zone = timezone ? { timeZone: timezone } : {};
        // An unknown zone throws a RangeError naming it: the client sees that message as the error.
        const locale = { time: now.toLocaleString(undefined, zone), date: now.toLocaleDateString(undefined, zone), timeOnly: now.toLocaleTimeString(undefined, zone) };
        const forms = { iso: now.toISOString(), locale: locale.time, timestamp: now.getTime(), unix: Math.floor(now.getTime() / 1000) };
        return { format, time: forms[format], date: locale.date, timeOnly: locale.timeOnly, timestamp: forms.timestamp, unix: forms.unix, iso: forms.iso, ...(timezone ? { timezone } : {}) };
      },
    },
    {
      name: 'util.uuid',
      title: 'Generate UUIDs',
      description: 'Random (version 4) UUIDs, one or up to 100.',
      inputSchema: {
        type: 'object',
        properties: {
          version: { type: 'string', enum: ['v4'], description: 'UUID version (only v4)' },
          count: { type: 'integer', minimum: 1, maximum: 100, description: 'How many (default 1)' },
        },
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler({ count = 1 }) {
        const uuids = Array.from({ length: count }, () => crypto.randomUUID());
        return { version: 'v4', count, uuids: count === 1 ? uuids[0] : uuids };
      },
    },
    {
      name: 'util.hash',
      title: 'Hash text',
      description: 'The hex digest of a string with md5, sha1, sha256 or sha512.',
      inputSchema: {
        type: 'object',
        properties: {
          data: { type: 'string', description: 'The text to hash (UTF-8)' },
          algorithm: { type: 'string', enum: ['md5', 'sha1', 'sha256', 'sha512'], description: 'Default sha256' },
        },
        required: ['data'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler({ data, algorithm = 'sha256' }) {
        const hash = crypto.createHash(algorithm).update(data, 'utf8').digest('hex');
        return { algorithm, hash, length: hash.length };
      },
    },
  ],
};
