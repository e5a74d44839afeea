import type { ParseArgsConfig } from 'node:util';

/** A command line Pincer cannot run as typed: one line naming what is wrong and `pincer help`, exit code 2. */
export class UsageError extends Error {
  constructor(
    readonly command: string,
    problem: string,
  ) {
    super(`pincer ${command}: ${problem}. Run "pincer help" for the usage.`);
    this.name = 'UsageError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * parseArgs (strict) for one command, with Node's own wording of a mistake ("Unknown option '--prot'.
 * To specify a positional argument starting with a '-', place it …") turned into a UsageError that
 * names the option and, for a near miss, the one meant. `positionals` is how many arguments the
 * command takes besides its options; any more is a usage error too.
 */
export async function parseCommand<O extends Options>(command: string, args: string[], options: O, positionals = 0) {
  // Builtins through getBuiltinModule: an ESM import of node:util reads all its exports (~3 MB of RSS for every client's bridge).
  const { parseArgs } = process.getBuiltinModule('node:util');
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: positionals > 0, strict: true });
  } catch (err) {
    throw new UsageError(command, await describe(err as NodeJS.ErrnoException, command, Object.keys(options)));
  }
  if (parsed.positionals.length > positionals) throw new UsageError(command, `unexpected argument "${parsed.positionals[positionals]}"`);
  return parsed;
}

/** `pincer status|stop …`: a command that takes nothing at all. */
export async function noArguments(command: string, args: string[]): Promise<void> {
  await parseCommand(command, args, {});
}

async function describe(err: NodeJS.ErrnoException, command: string, names: string[]): Promise<string> {
  const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? '';
  const option = quoted.split(/[ ,]/).filter((p) => p.startsWith('-')).pop() ?? quoted;
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      // Loaded only for a mistake: the bridge, which parses its arguments here too, stays light.
      const { closest, distance } = await import('fastest-levenshtein');
      const typed = option.replace(/^-+/, '').replace(/=.*$/, '');
      const near = names.length > 0 ? closest(typed, names) : undefined;
      const guess = near !== undefined && distance(typed, near) <= 2 ? near : undefined;
      const takes = names.length === 0 ? ` ("pincer ${command}" takes no options)` : guess ? ` (did you mean --${guess}?)` : '';
      return `unknown option "${option}"${takes}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return / argument missing/.test(err.message) ? `${option} needs a value` : `${option} takes no value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}"`;
    default:
      return err.message;
  }
}
