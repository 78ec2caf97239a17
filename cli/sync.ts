// What the `sync hevy` commands share: the athlete, and the status in words.
import type { HevySyncStatus } from '../services/sync/hevy-sync.ts';

export function describeHevyStatus(s: HevySyncStatus): string[] {
  if (!s.connected) return ['Hevy: not connected', ...(s.position ? [`position kept: ${s.position} (connecting again goes on from there)`] : [])];
  const lines = [`Hevy: connected${s.hevy_user_name ? ` as ${s.hevy_user_name}` : ''} since ${s.connected_at}${s.paused ? ' (paused)' : ''}`];
  lines.push(`position: ${s.position ?? 'none yet (the first run reads all of Hevy)'}`);
  const run = s.last_run;
  if (run) {
    lines.push(`last run: ${run.state}, started ${run.started_at}${run.finished_at ? `, finished ${run.finished_at}` : ''}`);
    if (run.state === 'running' && run.progress) lines.push(`  reading page ${run.progress.page} of ${run.progress.page_count}`);
    if (run.summary) lines.push(`  ${describeSummary(run.summary)}`);
    if (run.error) lines.push(`  error (${run.error.code}): ${run.error.message}`);
  } else lines.push('last run: none yet');
  lines.push(`next run: ${s.next_run_at ?? (s.paused ? 'none while paused' : 'none by itself (run `repledger sync hevy run`)')}`);
  if (s.history.length) {
    lines.push('recent syncs that changed the record:');
    for (const h of s.history) lines.push(`  ${h.at}: ${describeSummary(h.summary)}`);
  }
  return lines;
}

export function describeSummary(s: {
  workouts_created: number;
  workouts_updated: number;
  workouts_deleted: number;
  workouts_unchanged: number;
  exercises_added: number;
  skipped_count: number;
}): string {
  return `${s.workouts_created} workouts added, ${s.workouts_updated} updated, ${s.workouts_deleted} deleted, ${s.workouts_unchanged} unchanged, ${s.exercises_added} new exercises${s.skipped_count ? `, ${s.skipped_count} skipped` : ''}`;
}
