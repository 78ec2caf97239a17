#!/usr/bin/env node
// Plain JS entry so the shebang works; everything it loads is TypeScript run by Node 24's type stripping.
import { execute } from '@oclif/core';
await execute({ dir: import.meta.url });
