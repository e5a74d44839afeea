import { randomUUID } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): the current Unix time in milliseconds, then 74 random bits.
 * Ids that grow with time land at the end of an index instead of on a random page of it:
 * the tool call record (`tool_calls`, keyed by id) writes half as many pages per batch as
 * with random (version 4) ids (issue 17). Built from Node's buffered `randomUUID`, whose
 * time and version digits are replaced.
 */
export function timeOrderedId(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  // randomUUID(): xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx; from index 15 on: random, variant, random.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}
