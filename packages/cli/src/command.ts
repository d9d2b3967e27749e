/** What a CLI command returns: its output for --json and for people. */
export interface CommandResult {
  json: unknown;
  text: string;
  /** Set when the command did its work but some of it failed: printed on stderr (one line), exit 1. */
  failure?: string;
}

export type Handler = (argv: string[]) => Promise<CommandResult>;
