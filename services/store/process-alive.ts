// Whether a process of this machine is running, for work that records which process holds it
// (a projection rebuild's table, an export's partial file, a backup's staging folder) and must tell
// a live holder from a dead one.

/** False for an id that names no process (0, negative, missing); EPERM means it runs under another user. */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
