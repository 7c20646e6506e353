/** Streams a command writes to, and how it learns it should stop (tests pass their own). */
export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Resolves when the user asks to stop (Ctrl-C, SIGTERM). */
  interrupted: Promise<void>;
}
