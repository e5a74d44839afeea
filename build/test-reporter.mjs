// The reporter of `npm test`: Node's own spec reporter, except that a `todo` test whose body
// throws (what todo means: not done yet) is listed once, marked ⚠ with its todo reason, and is not
// repeated with its stack trace under "failing tests" after "fail 0". The closing summary (ℹ tests / pass / fail /
// todo …) is the spec reporter's, unchanged: CI reads it.
import { Readable } from 'node:stream';
import { spec as Spec } from 'node:test/reporters';

const todoFailure = (e) => e.type === 'test:fail' && e.data.todo !== undefined && e.data.todo !== false;

/**
 * The spec reporter lists under "failing tests" every failure but one whose error says its
 * subtests failed (those were listed already); a todo failure is given that mark, so it is shown
 * once, in place, as "⚠ … # todo reason", and counted under "todo" as before.
 */
function quiet(e) {
  if (!todoFailure(e) || !e.data.details?.error) return e;
  e.data.details.error.failureType = 'subtestsFailed';
  return e;
}

export default async function* todoQuietSpec(source) {
  const events = Readable.from(
    (async function* () {
      for await (const e of source) yield quiet(e);
    })(),
    { objectMode: true },
  );
  yield* events.pipe(new Spec());
}
