import Hello from './commands/hello.ts';
export const COMMANDS = { hello: Hello };
