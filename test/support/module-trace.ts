// Loaded with `node --import` into a CLI process under test: prints the URL of every module the
// process loads to stderr, one `module-loaded <url>` line each, so a test can see what a command pulls in.
import { writeSync } from 'node:fs';
import { registerHooks } from 'node:module';

registerHooks({
  load(url, context, next) {
    writeSync(2, `module-loaded ${url}\n`);
    return next(url, context);
  },
});
