import { isClientError } from '../shared/errors';
import { closest } from './flags';
import type { CliIo } from './io';
import { historyHelp, historyMain } from './history';
import { peopleHelp, peopleMain } from './people';
import { publishHelp, publishMain } from './publish';
import { roomsCommand } from './rooms';
import { collectionsCommand, compareCommand, detectCommand } from './vision-commands';
import { helpText as watchHelp, watchMain } from './watch';

/** A command of the binary: what it does in one line, its help, and how it runs. */
interface Command {
  summary: string;
  help: () => string;
  run: (args: readonly string[], env: NodeJS.ProcessEnv, io: CliIo) => Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  watch: { summary: 'watch a live room: one JSON line per face event (match, unknown, arrived, left)', help: watchHelp, run: watchMain },
  publish: { summary: 'publish cameras (RTSP, MJPEG/snapshot URLs, /dev/videoN, files) into a room and keep them up', help: publishHelp, run: publishMain },
  people: { summary: 'keep the people of a collection: add, name a stranger, rename, merge, not-this-person, forget', help: peopleHelp, run: peopleMain },
  history: { summary: 'the visits watch --history kept: search by person, visitor, stream, time or face; delete one', help: historyHelp, run: historyMain },
  detect: { summary: 'faces (with where they look) or heads in an image', help: detectCommand.help, run: detectCommand.run },
  compare: { summary: 'two faces, or a face and the faces of a collection: how alike', help: compareCommand.help, run: compareCommand.run },
  collections: { summary: 'face collections: list, create, delete, faces, add-face, remove-face', help: collectionsCommand.help, run: collectionsCommand.run },
  rooms: { summary: 'live rooms: list, get, create, delete, ticket', help: roomsCommand.help, run: roomsCommand.run },
};

/** The binary's own help: the commands, one line each. */
export function commandsHelp(): string {
  return [
    'Usage: vision-streaming COMMAND [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`),
    '',
    'vision-streaming help COMMAND (or COMMAND --help) shows its flags. Every command takes the same',
    'credential flags and variables (--client-id or VS_CLIENT_ID, --auth-url, --vision-url, --sfu-url; the',
    'secret in VS_CLIENT_SECRET only), so one set serves a script of several commands.',
    '',
  ].join('\n');
}

/** Runs `vision-streaming <args>`; resolves with the exit code. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    io.stdout(commandsHelp());
    return name === undefined ? 2 : 0;
  }
  if (name === 'help') {
    const about = rest[0];
    if (about === undefined) {
      io.stdout(commandsHelp());
      return 0;
    }
    const command = COMMANDS[about];
    if (!command) return unknown(about, io);
    io.stdout(command.help());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) return unknown(name, io);
  return command.run(rest, env, io);
}

function unknown(name: string, io: CliIo): number {
  const near = closest(name, Object.keys(COMMANDS));
  io.stderr(`vision-streaming: unknown command "${name.slice(0, 40)}"${near ? ` (did you mean ${near}?)` : ''}; commands: ${Object.keys(COMMANDS).join(', ')}`);
  io.stderr('see: vision-streaming --help');
  return 2;
}

/** Entry point of the bin: real stdout/stderr; the first Ctrl-C or SIGTERM stops the command, a second ends the process. */
export function runCli(): void {
  // What `ps` shows of this process from now on: its arguments may hold a camera URL with its password.
  process.title = ['vision-streaming', ...process.argv.slice(2, 3).filter((a) => a in COMMANDS)].join(' ');
  let interrupt!: () => void;
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  let signals = 0;
  const onSignal = (): void => {
    signals++;
    if (signals > 1) process.exit(130);
    process.stderr.write('stopping...\n');
    interrupt();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.stdout.on('error', () => undefined);
  const io: CliIo = {
    stdout: (line) => void process.stdout.write(`${line}\n`),
    stderr: (line) => void process.stderr.write(`${line}\n`),
    interrupted,
  };
  void main(process.argv.slice(2), process.env, io).then(
    (code) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.exitCode = code;
      // Everything is closed by now; should a library still hold a handle, the command ends anyway.
      setTimeout(() => process.exit(code), 3000).unref();
    },
    (err: unknown) => {
      process.stderr.write(`vision-streaming: ${isClientError(err) ? `${err.message} [${err.code}]` : err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
