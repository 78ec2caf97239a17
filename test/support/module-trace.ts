// Loaded with `node --import` into a CLI process under test: appends the URL of every module the
// process loads to the file MODULE_TRACE_FILE names, one line each, so a test can see what a
// command pulls in. Not to stderr: once the process opens process.stderr, fd 2 is non-blocking,
// and a busy test process that reads it late makes writeSync fail with EAGAIN inside the loader,
// which ends the command with exit 1 and loses the error with it.
import { openSync, writeSync } from 'node:fs';
import { registerHooks } from 'node:module';

const path = process.env.MODULE_TRACE_FILE;
if (!path) throw new Error('module-trace: set MODULE_TRACE_FILE to the file to write');
const fd = openSync(path, 'a');

registerHooks({
  load(url, context, next) {
    writeSync(fd, `${url}\n`);
    return next(url, context);
  },
});
