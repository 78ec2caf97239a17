#!/usr/bin/env node
// Plain JS entry so the shebang works; everything it loads is TypeScript run by Node 24's type
// stripping. An older Node fails on the first .ts file with ERR_UNKNOWN_FILE_EXTENSION, which
// says nothing useful: check the version first, with nothing but plain JS loaded.
const REQUIRED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_MAJOR) {
  const message =
    `repledger needs Node.js ${REQUIRED_MAJOR} or newer; this is Node.js ${process.versions.node} (${process.execPath}).\n` +
    `The project brings its own Node ${REQUIRED_MAJOR} (the \`node\` devDependency): from the project directory run\n` +
    `  npx repledger <command>      e.g. npx repledger athletes list\n` +
    `  npm start                    to serve\n` +
    `or ./node_modules/.bin/node cli/bin/run.js <command>.`;
  // Under --json, the same error shape as every command's.
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: { code: 'unsupported_node', message } }, null, 2)}\n`);
  } else {
    process.stderr.write(`${message}\n`);
  }
  process.exit(1);
}
// Node compiles every module (and strips the types of every .ts file, loading its TypeScript
// parser to do so) anew on each start; a command is mostly that. The cache, in the OS temp
// directory unless NODE_COMPILE_CACHE says otherwise, keeps the results; a changed file is
// compiled again (each entry is checked against its source).
const { enableCompileCache } = await import('node:module');
enableCompileCache();
// Loading @oclif/core otherwise checks its own engines range with semver (47 modules, a tenth of
// --help's time); the check above already refused any Node this CLI cannot run on.
process.env.OCLIF_DISABLE_ENGINE_WARNING = '1';
// A reader that stops early (`repledger export --file - | head`) closes the pipe: stop quietly, as
// command-line tools do, instead of failing with EPIPE.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  // A full disk or a closed descriptor: said in one line, not as an uncaught stack trace.
  process.stderr.write(`repledger: cannot write to standard output: ${error.message}\n`);
  process.exit(1);
});
const { Errors, flush, handle, run } = await import('@oclif/core');
// As oclif's `execute`, except that under --json a failure oclif answers itself, before any command
// runs (no such command), is one error object on stdout too, like every command's own failures.
await run(process.argv.slice(2), import.meta.url).then(
  // Not awaited, as `execute` does not: a reader that closed the pipe early never drains it.
  () => void flush(),
  async (error) => {
    if (!process.argv.includes('--json') || error instanceof Errors.ExitError) return handle(error);
    const message = String(error?.message ?? error).replace(/\u001b\[[0-9;]*m/g, '');
    // oclif's own refusals are of what was typed; anything else is ours.
    const code = error instanceof Errors.CLIError ? 'invalid_input' : 'internal';
    process.stdout.write(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`);
    process.exitCode = error?.oclif?.exit ?? 2;
  },
);
