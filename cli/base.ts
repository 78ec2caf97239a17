// Shared by every command: `--json`, the opened app, and closing it however the command ends.
import { Command } from '@oclif/core';
import { openApp, type App } from '../services/app.ts';
import { loadConfig } from '../services/config.ts';
import { DomainError } from '../services/domain/errors.ts';

export abstract class AppCommand extends Command {
  static override enableJsonFlag = true;
  #app: App | null = null;

  protected async app(): Promise<App> {
    return (this.#app ??= await openApp(loadConfig()));
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
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
