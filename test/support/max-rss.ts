// Preloaded into a command under test (`NODE_OPTIONS=--import <this file>`): prints the process's
// peak resident memory on stderr as it exits, for tests that bound an import's memory.
process.on('exit', () => process.stderr.write(`\nmax_rss_kb ${process.resourceUsage().maxRSS}\n`));
