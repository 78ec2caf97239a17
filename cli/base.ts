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
  if (error instanceof DomainError || isRefusal(error)) return { error: { code: error.code, message: error.message }, exit: 2 };
  const message = error instanceof Error ? error.message : String(error);
  const exit = (error as Partial<Errors.CLIError>).oclif?.exit ?? 1;
  return { error: { code: usage ? 'invalid_input' : 'internal', message }, exit };
}

/**
 * A refusal of a service's own with a stable code (`HevySyncError`): exit 2 as the domain's. Told
 * by its `refusal` mark rather than its class, so that this file loads no service to know it.
 */
export function isRefusal(error: unknown): error is Error & { code: string; refusal: true } {
  return error instanceof Error && (error as { refusal?: unknown }).refusal === true && typeof (error as { code?: unknown }).code === 'string';
}

/** Control characters (C0, C1, DEL) and bidirectional overrides, as text a terminal shows rather than obeys. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
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
    if (error instanceof DomainError || isRefusal(error)) this.error(error.message, { exit: 2, code: error.code });
    return super.catch(error);
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    await this.#app?.close();
    return super.finally(error);
  }

  /**
   * Text output: what the record holds (an agent's meal name, a workout's notes) may hold control
   * characters, which are written out (`\u{1b}`), never sent to the terminal to act on: an escape
   * could clear the screen or a newline forge a line of an auditor's listing.
   */
  override log(message = '', ...args: unknown[]): void {
    super.log(printable(message), ...args);
  }

  /** A line of the command's own, styled with oclif's colours (which `log` would write out). */
  protected logStyled(message: string): void {
    super.log(message);
  }

  /** Progress goes to stderr, so that `--json` output on stdout stays parseable. */
  protected progressEnabled(): boolean {
    return !this.jsonEnabled();
  }
}
