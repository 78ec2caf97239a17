// Shared by every command: `--json`, the opened app, and closing it however the command ends.
import { Command, Errors } from '@oclif/core';
import type { App } from '../services/app.ts';
import { DomainError } from '../services/domain/errors.ts';

/** What a failed command prints under `--json` (on stdout, like a result), and its exit code. */
export interface Failure {
  error: { code: string; message: string };
  exit: number;
}

/**
 * The stable code of a failure: the domain's own code; `invalid_input` for flags and arguments
 * that do not parse; `internal` for anything unexpected. Exit codes are those of the same
 * failure without `--json`: 2 for a refusal, oclif's for a usage error, 1 otherwise.
 */
export function failureOf(error: unknown, usage: boolean): Failure {
  if (error instanceof DomainError) return { error: { code: error.code, message: error.message }, exit: 2 };
  const message = error instanceof Error ? error.message : String(error);
  const exit = (error as Partial<Errors.CLIError>).oclif?.exit ?? 1;
  return { error: { code: usage ? 'invalid_input' : 'internal', message }, exit };
}

export abstract class AppCommand extends Command {
  static override enableJsonFlag = true;
  #app: App | null = null;

  protected async app(): Promise<App> {
    if (this.#app) return this.#app;
    // Loaded here, not at the top: building oclif's manifest loads every command module (and so
    // would the CLI, without one), and only the commands that open the app should pay for the
    // stores, projections and zod.
    const [{ openApp }, { loadConfig }] = await Promise.all([import('../services/app.ts'), import('../services/config.ts')]);
    return (this.#app = await openApp(loadConfig()));
  }

  // oclif prints nothing on stdout for most failures under --json (and for a usage error, its
  // whole parser state): every command answers one shape instead, whatever failed.
  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof Errors.ExitError) return super.catch(error);
    if (this.jsonEnabled()) {
      // Every command parses first (oclif sets `parsed` after), so a failure before is a usage error.
      const failure = failureOf(error, !this.parsed);
      process.exitCode = failure.exit;
      this.logJson({ error: failure.error });
      return undefined;
    }
    if (error instanceof DomainError) this.error(error.message, { exit: 2, code: error.code });
    return super.catch(error);
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    await this.#app?.close();
    return super.finally(error);
  }

  /** Progress goes to stderr, so that `--json` output on stdout stays parseable. */
  protected progressEnabled(): boolean {
    return !this.jsonEnabled();
  }
}
