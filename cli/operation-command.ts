import type { ConnectionLease } from '../shared/connection';
import { InputError } from '../shared/errors';
import { reportFailure } from './errors';
import { CREDENTIAL_FLAGS, HELP_FLAG, credentialsOf, helpPage, parseFlags, type Flag, type FlagValues } from './flags';
import type { CliIo } from './io';

/** One call of a service, as a command (detect) or an action of one (collections create). */
export interface Operation {
  /** What it does, in one line (the help's list of actions). */
  summary: string;
  /** The arguments it takes besides flags, by name (IMAGE); all required unless `optionalArgs` says how many may be left out at the end. */
  args?: readonly string[];
  optionalArgs?: number;
  /** The names of the command's flags it takes, besides the credential flags and --help. */
  uses?: readonly string[];
  /**
   * Reads its flags and arguments (every check and file read before anything is sent) and gives
   * the call: one core function, whose answer is printed as one JSON value.
   */
  prepare(input: { flags: FlagValues; args: readonly string[] }): Promise<(lease: ConnectionLease, signal: AbortSignal) => Promise<unknown>>;
}

/** A command of service calls: one operation (detect), or several, chosen by the word after it (collections list). */
export interface OperationCommandSpec {
  name: string;
  /** The usage after `vision-streaming NAME`. */
  usage: string;
  about: readonly string[];
  /** Every flag of the command besides the credential flags and --help, in the order --help lists them. */
  flags: readonly Flag[];
  /** The operations by action; a command of one operation has the one key ''. */
  operations: Readonly<Record<string, Operation>>;
  examples: readonly string[];
}

/** A command of service calls as the binary runs it. */
export interface OperationCommand {
  /** Every flag the command takes, for its help and the docs' tables. */
  flags: readonly Flag[];
  /** Its actions with their one-line help (none for a command of one operation). */
  actions: Readonly<Record<string, string>>;
  help(): string;
  run(args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number>;
}

/**
 * Makes a command of service calls: flags checked (an unknown one named, with the closest), the
 * call made through the command's own connection (released at the end), its answer printed as one
 * JSON line on stdout. Exit 0 done, 2 bad input (the flag named), 1 the service or a file failed.
 */
export function operationCommand(spec: OperationCommandSpec): OperationCommand {
  const flags: readonly Flag[] = [...CREDENTIAL_FLAGS, ...spec.flags, HELP_FLAG];
  const actions = Object.keys(spec.operations).filter((a) => a !== '');
  const help = (): string =>
    helpPage({
      command: spec.name,
      usage: spec.usage,
      about: [
        ...spec.about,
        'Prints one JSON value on stdout. Exit 0: done; 2: bad input (the flag or argument named); 1: the service failed.',
        ...(actions.length > 0 ? ['', 'Actions:', ...actions.map((a) => `  ${a.padEnd(13)} ${spec.operations[a].summary}`)] : []),
        '',
        'Examples:',
        ...spec.examples.map((e) => `  ${e}`),
      ],
      flags,
    });
  const run = async (argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> => {
    let rest = argv;
    let action = '';
    if (actions.length > 0) {
      const word = argv[0];
      if (word === undefined || word === '--help' || word === '-h') {
        io.stdout(help());
        return word === undefined ? 2 : 0;
      }
      if (!actions.includes(word)) {
        io.stderr(`vision-streaming ${spec.name}: unknown action "${word.slice(0, 40)}"; actions: ${actions.join(', ')}`);
        io.stderr(`see: vision-streaming ${spec.name} --help`);
        return 2;
      }
      action = word;
      rest = argv.slice(1);
    }
    const operation = spec.operations[action];
    const command = action ? `${spec.name} ${action}` : spec.name;
    const own = new Set(operation.uses ?? []);
    const taken = flags.filter((f) => f.name === 'help' || CREDENTIAL_FLAGS.includes(f) || own.has(f.name));
    let call: Awaited<ReturnType<Operation['prepare']>>;
    let credentials: ReturnType<typeof credentialsOf>;
    try {
      const values = parseFlags(rest, taken, env, operation.args ?? []);
      if (values.on('help')) {
        io.stdout(help());
        return 0;
      }
      checkArgs(command, operation, values.args);
      credentials = credentialsOf(values, env);
      call = await operation.prepare({ flags: values, args: values.args });
    } catch (err) {
      return reportFailure(command, err, taken, io);
    }
    // Loaded only now, so that --help and a bad flag answer without loading HTTP.
    const { acquireConnection } = await import('../shared/connection');
    const lease = acquireConnection({ ...credentials, owner: 'the command' });
    const abort = new AbortController();
    void io.interrupted.then(() => abort.abort());
    try {
      const answer = await call(lease, abort.signal);
      io.stdout(typeof answer === 'string' ? answer : JSON.stringify(answer));
      return 0;
    } catch (err) {
      return reportFailure(command, err, taken, io);
    } finally {
      await lease.release();
    }
  };
  return { flags, actions: Object.fromEntries(actions.map((a) => [a, spec.operations[a].summary])), help, run };
}

/** A missing argument is bad input naming it. */
function checkArgs(command: string, operation: Operation, given: readonly string[]): void {
  const names = operation.args ?? [];
  const needed = names.length - (operation.optionalArgs ?? 0);
  if (given.length < needed) {
    throw new InputError('invalid_input', `${command} takes ${names.join(' ')}: ${names[given.length]} is missing`, { field: names[given.length], limit: 'a value' });
  }
}
